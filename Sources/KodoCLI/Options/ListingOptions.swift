import ArgumentParser

/// The `BUCKET[/PREFIX]` argument of `ls`, `find` and `du`.
struct PrefixArgument: ParsableArguments {
  @Argument(
    help: ArgumentHelp(
      "The bucket and an optional key prefix (default: the configured bucket).",
      valueName: "BUCKET[/PREFIX]"),
    completion: ShellCompletion.bucketPath)
  var target: String?
}

/// `--page-size`, which `ls`, `find` and `du` share.
struct PageSizeOption: ParsableArguments {
  @Option(
    name: .customLong("page-size"),
    help: ArgumentHelp("Entries per request, 1-1000 (default 1000).", valueName: "N"))
  var pageSize: Int?

  /// The entries to ask for per request.
  var entries: Int { pageSize ?? 1000 }

  /// Refuses a page size outside 1-1000 (the commands call it, so the order of their checks
  /// stays theirs).
  func check() throws {
    if let pageSize, !(1...1000).contains(pageSize) {
      throw ValidationError("--page-size must be between 1 and 1000")
    }
  }
}

/// The checks `ls`, `find` and `du` share on `--limit`, `--marker`, `--parallel` and `-0`.
enum ListingChecks {
  /// `--parallel` within 1-64.
  static func parallel(_ parallel: Int?) throws {
    if let parallel, !(1...64).contains(parallel) {
      throw ValidationError("--parallel must be between 1 and 64")
    }
  }

  /// `--limit` at least 1, and `--parallel` (which needs `recursive`) within 1-64 and without
  /// `--limit` or `--marker`.
  static func limit(_ limit: Int?, marker: String?, parallel: Int?, recursive: Bool) throws {
    if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    if parallel != nil {
      guard recursive else { throw ValidationError("--parallel needs -r/--recursive") }
      try Self.parallel(parallel)
      guard limit == nil, marker == nil else {
        throw ValidationError("--parallel cannot be combined with --limit or --marker")
      }
    }
  }

  /// `-0` prints keys only: not with `--json`, `-l` or `--summarize`.
  static func nulSeparated(_ nulSeparated: Bool, json: Bool, long: Bool, summarize: Bool) throws {
    if nulSeparated && (json || long || summarize) {
      throw ValidationError(
        "-0 prints keys only; it cannot be combined with --json, -l or --summarize")
    }
  }

  /// `-0` against the `--json` the run resolved.
  static func nulSeparated(_ nulSeparated: Bool, json: Bool) throws {
    if nulSeparated && json {
      throw ValidationError("-0 prints keys only; it cannot be combined with --json")
    }
  }
}
