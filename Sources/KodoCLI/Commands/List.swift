import ArgumentParser
import AsyncAlgorithms
import Foundation
import StorageCore

struct List: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "ls",
    abstract: "List a bucket one folder level at a time, folders first, or recursively with -r.",
    discussion: """
      One level shows every folder (common prefix) before any object, across all pages; names \
      are shown relative to the folder listed (what follows the last / of the prefix). --json and \
      -0 keep the service's order instead: each page's folders, then its objects. With --limit \
      the listing stops after N entries and says where to resume: on stderr as "--marker TOKEN", \
      or as a final {"type":"next","marker":…} line with --json. --parallel (1-64, with -r) \
      lists that many top-level folders at once, with the same output in the same order. \
      --include and --exclude (globs on the whole key: * and ? within one / segment, ** across \
      them) choose which objects are shown; folders always are, and --limit counts what was \
      listed before the patterns. --sort name|size|time (with --reverse) orders the objects \
      (after the folders) in bounded memory, through temporary files for large listings; the \
      output starts when the listing ends.

      Examples:
        kodo ls photos                      # the top level of bucket photos
        kodo ls photos/2024/                # one level under photos/2024/
        kodo ls -r --json logs/2024-06/ | jq -r .key
        kodo ls -r --limit 1000 logs        # the first 1000, then where to resume
        kodo ls -r --marker TOKEN logs      # resume exactly there
        kodo ls -r -0 logs | xargs -0 -n1 echo
        kodo ls -r photos --include '**/*.jpg' --exclude '**/thumbs/**'
      """,
    aliases: ["list"]
  )

  @OptionGroup var location: PrefixArgument

  @Flag(name: .shortAndLong, help: "List every object under the prefix, not one level.")
  var recursive = false

  @Flag(name: .customShort("l"), help: "Long form: also the storage class, hash and MIME type.")
  var long = false

  @Flag(help: "End with the number of folders and objects and their total size.")
  var summarize = false

  @Option(
    help: ArgumentHelp(
      "Stop after N entries (folders and objects both count) and print where to resume.",
      valueName: "N"))
  var limit: Int?

  @Option(
    help: ArgumentHelp(
      "Resume a listing at the marker a previous --limit printed.", valueName: "TOKEN"))
  var marker: String?

  @OptionGroup var pageSize: PageSizeOption

  @Flag(
    name: .customShort("0"),
    help: "Print full keys (folders included) separated by NUL, nothing else.")
  var nulSeparated = false

  @Option(
    help: ArgumentHelp(
      "With -r: list up to N (1-64) top-level folders at once (same output, same order).",
      valueName: "N"))
  var parallel: Int?

  @OptionGroup var patterns: PatternOptions
  @OptionGroup var sorting: SortOptions

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func validate() throws {
    try sorting.validate(limit: limit, marker: marker)
    try pageSize.check()
    try ListingChecks.limit(limit, marker: marker, parallel: parallel, recursive: recursive)
    try ListingChecks.nulSeparated(
      nulSeparated, json: global.json, long: long, summarize: summarize)
  }

  func execute(_ context: Context) async throws {
    let json = context.options.json
    try ListingChecks.nulSeparated(nulSeparated, json: json)
    if (location.target ?? "").isEmpty && context.configuration.bucket == nil {
      // Nothing to list in: the buckets, as ossutil ls, mc ls and aws s3 ls do.
      try await Buckets.list(context)
      return
    }
    let (bucket, prefix) = try BucketPath.split(location.target, context: context)
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    let output = OutputStream.standardOutput()
    var renderer = ListRenderer(
      mode: json ? .json : nulSeparated ? .nul : .text, long: long, humanSizes: output.isTerminal,
      relativeTo: recursive ? nil : prefix,
      palette: Palette(terminal: output.isTerminal, environment: context.environment),
      columns: try context.providerKind().longColumns)
    let progress = Progress(enabled: recursive && !output.isTerminal && Diagnostics.isTerminal)
    defer { progress.clear() }
    var listing = Listing(
      provider: provider, bucket: bucket, prefix: prefix, output: output, progress: progress,
      resume: resumeCommand(bucket: bucket, prefix: prefix, context: context))
    listing.patterns = try patterns.keyPatterns()
    listing.sorter = sorting.sorter(context: context)
    do {
      let held =
        !recursive && !json && !nulSeparated
        ? HeldOutput(
          directory: context.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
        : nil
      try await listing.run(
        ListRequest(
          bucket: bucket, prefix: prefix, delimiter: recursive ? nil : "/", marker: marker,
          limit: pageSize.entries),
        parallel: parallel, entryLimit: limit, held: held, renderer: &renderer)
    } catch let failure as CommandFailure {
      throw NotFoundAdvice.forListing(
        failure, bucket: bucket, target: location.target, context: context)
    }
    progress.clear()
    try listing.sorter?.drain { (batch: [ObjectEntry]) throws(StorageError) in
      try renderer.objects(batch, to: output)
    }
    if summarize {
      try renderer.summary(partial: listing.stoppedEarly, to: output)
    }
    try output.flush()
    if !listing.stoppedEarly, let hint = listing.patterns.nothingIncludedHint {
      Diagnostics.note(hint)
    }
    try renderer.checkRecords()
  }

  /// The command that continues this listing from a marker: everything that changes what is
  /// listed, from where, and how it is shown.
  private func resumeCommand(bucket: String, prefix: String, context: Context) -> DisplayText {
    var parts: [String] = []
    if recursive { parts.append("-r") }
    if long { parts.append("-l") }
    if context.options.json { parts.append("--json") }
    if nulSeparated { parts.append("-0") }
    if summarize { parts.append("--summarize") }
    if let pageSize = pageSize.pageSize { parts += ["--page-size", String(pageSize)] }
    if let limit { parts += ["--limit", String(limit)] }
    for pattern in patterns.include { parts += ["--include", pattern] }
    for pattern in patterns.exclude { parts += ["--exclude", pattern] }
    parts.append(prefix.isEmpty ? bucket : bucket + "/" + prefix)
    return ResumeCommand("ls", parts, context: context).text
  }
}
