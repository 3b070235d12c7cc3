import ArgumentParser
import StorageCore
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

struct Sync: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync",
    abstract: "Copy what is missing or differs from a local folder to a bucket, or back.",
    discussion: """
      One direction per run: a local DIR to BUCKET/PREFIX/ (uploads), or BUCKET/PREFIX/ to DIR \
      (downloads). The local side is the argument that names an existing directory or starts \
      with /, ./ or ../ (or is . or ..); the other is BUCKET/PREFIX (oss:// or kodo:// marks it \
      too). A file is copied when it is missing at DEST or differs: another size, or the same \
      size and another content hash (Kodo's hash, OSS's CRC-64); --size-only compares sizes \
      only. Only what differs is replaced; the rest is kept, counted as skipped.

      --delete also removes what exists only at DEST (under PREFIX, or regular files under DIR; \
      a symbolic link is never followed nor deleted, folders are kept): on a terminal kodo asks \
      first, without one it refuses (exit 64, before copying anything) unless --yes. Nothing is \
      deleted when a copy failed. --dry-run prints what would be copied and deleted and changes \
      nothing. --include and --exclude match the path below DIR and PREFIX, on both sides (see \
      find --help). Uploads and downloads are those of put -r and get -r: links and special \
      files skipped, names outside DIR refused, interrupted uploads in parts resumed.

      Examples:
        kodo sync ./site web/                     # upload what changed
        kodo sync --delete --yes ./site web/      # and delete what is gone
        kodo sync --dry-run web/2024/ ./backup    # what a download would copy
        kodo sync --exclude '*.tmp' ./logs logs/
      """
  )

  @OptionGroup var download: DownloadOptions
  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  @Flag(help: "Also delete what exists only at DEST (asks first; --yes without a terminal).")
  var delete = false

  @Flag(name: .shortAndLong, help: "With --delete: delete without asking.")
  var yes = false

  @Flag(help: "Print what would be copied and deleted; change nothing.")
  var dryRun = false

  @Flag(help: "Compare sizes only, not content hashes.")
  var sizeOnly = false

  @Option(help: ArgumentHelp("Only paths that match PATTERN (repeatable).", valueName: "PATTERN"))
  var include: [String] = []

  @Option(
    help: ArgumentHelp("Leave out paths that match PATTERN (repeatable).", valueName: "PATTERN"))
  var exclude: [String] = []

  @Flag(help: "Uploading: follow symbolic links (a link back to a folder above is skipped).")
  var followSymlinks = false

  @Option(help: ArgumentHelp("N files or parts at once, 1-64 (default 4).", valueName: "N"))
  var parallel: Int?

  @Argument(
    help: ArgumentHelp(
      "Where to copy from, then where to: a local DIR and BUCKET/PREFIX/, either way round.",
      valueName: "SRC DEST"),
    completion: ShellCompletion.objectArguments)
  var arguments: [String] = []

  var source: String { arguments.first ?? "" }
  var destination: String { arguments.last ?? "" }

  func validate() throws {
    if let parallel, !(1...64).contains(parallel) {
      throw ValidationError("--parallel must be between 1 and 64")
    }
    if yes && !delete { throw ValidationError("--yes goes with --delete") }
  }

  /// Which side is local.
  enum Direction { case up, down }

  /// Whether `argument` names the local side: an existing directory, or a path that says it is
  /// one (`/`, `./`, `../`, `.`, `..`); a scheme says it is not.
  static func isLocal(_ argument: String) -> Bool {
    if ProviderRegistry.scheme(of: argument) != nil {
      return false
    }
    if argument == "." || argument == ".." || KeySegments.startsWithSlash(argument)
      || argument.hasPrefix("./")
      || argument.hasPrefix("../")
    {
      return true
    }
    var status = stat()
    return stat(argument, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
  }

  /// Which side is local (checked when run, not when parsed, so that completion can parse a
  /// command line that has only SRC).
  func direction() throws -> Direction {
    guard arguments.count == 2 else { throw ValidationError("expected SRC DEST") }
    switch (Self.isLocal(source), Self.isLocal(destination)) {
    case (true, false): return .up
    case (false, true): return .down
    case (true, true):
      throw ValidationError(
        "both SRC and DEST are local directories: write the bucket's side as oss://BUCKET/PREFIX or kodo://BUCKET/PREFIX"
      )
    case (false, false):
      throw ValidationError(
        "neither SRC nor DEST is a local directory: write the local one as ./DIR (or an absolute path)"
      )
    }
  }

  func execute(_ context: Context) async throws {
    let direction = try direction()
    let remote = direction == .up ? destination : source
    let (bucket, given) = try BucketPath.split(remote, context: context)
    let prefix = given.isEmpty || KeySegments.endsWithSlash(given) ? given : given + "/"
    let patterns = try KeyPatterns(include: include, exclude: exclude)
    if delete && !dryRun && !yes {
      try Confirm.requireTerminal("sync --delete")
    }
    switch direction {
    case .up:
      let writer = try context.provider((any ObjectWriting).self, for: "uploads")
      try writer.validateBucketName(bucket)
      try await SyncUp(
        writer: writer, kind: try context.providerKind(), bucket: bucket, prefix: prefix,
        directory: source, patterns: patterns, options: self, json: context.options.json,
        stateDirectory: UploadCheckpoints.directory(context.environment)
      ).run()
    case .down:
      let provider = try context.provider()
      try provider.validateBucketName(bucket)
      try await SyncDown(
        provider: provider, kind: try context.providerKind(), bucket: bucket, prefix: prefix,
        directory: destination,
        patterns: patterns, options: self, json: context.options.json,
        domain: download.choice(bucket: bucket, context: context)
      ).run()
    }
  }

  /// Asks before deleting `count` things at `place` (`--yes`: no question); `false`: declined.
  func confirmDeleting(_ count: Int, _ what: String, at place: DisplayText) throws -> Bool {
    guard count > 0, !dryRun, !yes else { return true }
    let noun = count == 1 ? what : what + "s"
    let agreed = try Confirm.ask(
      "delete \(count) \(noun) that \(count == 1 ? "exists" : "exist") only at " + place + "?",
      answer: .yes,
      refusal: "sync --delete")
    if !agreed { Diagnostics.note("nothing copied or deleted") }
    return agreed
  }
}

/// What `sync` listed at an upload's key: the object (if any) to compare the file with first.
struct SyncTarget: Sendable {
  /// The object, held by reference (a job stays small as a run passes it along).
  private let held: DestinationListing?
  var sizeOnly: Bool
  /// Whether the file was found the same as the object listed at its key before its job ran
  /// (by size with `--size-only`, else by `SyncCompare`; the object is then not held);
  /// `nil`: not compared yet.
  var same: Bool?

  init(listed: ObjectEntry?, sizeOnly: Bool, same: Bool? = nil) {
    held = listed.map { DestinationListing(object: $0) }
    self.sizeOnly = sizeOnly
    self.same = same
  }

  /// The object listed at the key (`nil`: none).
  var listed: ObjectEntry? { held?.object }
}

/// One line of a dry run: `{"type":"would-ACTION",FIELD:NAME,"size":…}` with `--json`, else
/// `would ACTION NAME`.
func syncDryRunLine(
  _ action: String, _ field: StaticString, _ name: String, size: Int64?, json: Bool,
  to output: OutputStream
) throws(StorageError) {
  if json {
    var line = JSONLine()
    line.string("type", "would-" + action)
    line.string(field, name)
    line.int("size", size)
    try output.write(line)
  } else {
    try output.line("would \(action) " + DisplayText(escaping: name))
  }
}
