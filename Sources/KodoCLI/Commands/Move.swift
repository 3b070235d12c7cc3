import ArgumentParser
import StorageCore

/// `kodo mv SRC DEST` and `kodo cp SRC DEST`: one object, or with `-r` a folder, server-side,
/// never replacing an existing destination unless `--force`.
struct RemoteTransferOptions: ParsableArguments {
  @Flag(
    name: .shortAndLong,
    help: "SRC is the folder BUCKET[/PREFIX]: every object under it goes to the folder DEST.")
  var recursive = false

  @Flag(help: "Replace an existing object at DEST.")
  var force = false

  @Flag(help: "Print what would be done; change nothing.")
  var dryRun = false

  @Flag(
    name: [.customShort("y"), .long],
    help: "Go ahead without asking (with -r); an existing DEST is then refused, not offered.")
  var yes = false

  @Argument(
    help: ArgumentHelp(
      "The object (BUCKET/KEY, also oss://BUCKET/KEY), then where it goes: BUCKET/KEY, or a folder (BUCKET or BUCKET/PREFIX/) that keeps its name; with -r, two folders.",
      valueName: "SRC DEST"),
    completion: ShellCompletion.objectArguments)
  var arguments: [String] = []

  /// Refuses anything but two remote arguments, a local path with what to run instead.
  func checkRemote(verb: String, provider: any StorageProvider) throws {
    guard arguments.count == 2 else {
      throw ValidationError(
        recursive
          ? "expected SRC DEST: kodo \(verb) -r BUCKET/PREFIX/ BUCKET/PREFIX/"
          : "expected SRC DEST: kodo \(verb) BUCKET/KEY BUCKET/KEY")
    }
    let (sourceText, destinationText) = (arguments[0], arguments[1])
    if Self.isLocal(sourceText, provider) {
      throw ValidationError(
        "\(DisplayText(quoting: sourceText).text) is a local path: kodo \(verb) works between objects, and this version does not upload"
      )
    }
    if Self.isLocal(destinationText, provider) {
      throw ValidationError(
        "\(DisplayText(quoting: destinationText).text) is a local path: kodo \(verb) works between objects; "
          + ForeignVerbs.download(after: verb, in: [verb] + arguments))
    }
  }

  /// The source and the destination; a local path on either side is refused with what to run
  /// instead.
  func resolve(_ context: Context, verb: String, provider: any StorageProvider) throws -> (
    ObjectLocation, ObjectLocation
  ) {
    try checkRemote(verb: verb, provider: provider)
    let (sourceText, destinationText) = (arguments[0], arguments[1])
    let sourcePath = try context.strippingScheme(sourceText)
    guard let (bucket, key) = KeySegments.splitAtFirstSlash(sourcePath), !key.isEmpty else {
      throw ValidationError(
        "\(DisplayText(quoting: sourceText).text) names no object: give SRC as BUCKET/KEY")
    }
    let source = ObjectLocation(bucket: String(bucket), key: String(key))
    let path = try context.strippingScheme(destinationText)
    let (destinationBucket, rest) =
      KeySegments.splitAtFirstSlash(path).map { (String($0), String($1)) } ?? (path, "")
    // A bare bucket or a folder keeps the source's name.
    let destinationKey =
      rest.isEmpty || KeySegments.endsWithSlash(rest)
      ? rest + KeySegments.lastSegment(of: source.key) : rest
    try provider.validateBucketName(destinationBucket)
    return (source, ObjectLocation(bucket: destinationBucket, key: destinationKey))
  }

  /// `.`, `..`, `./…`, `../…`, `/…`, `~…`, or a first segment that cannot be a bucket.
  static func isLocal(_ text: String, _ provider: any StorageProvider) -> Bool {
    if text.hasPrefix("kodo://") || text.hasPrefix("oss://") { return false }
    let first = KeySegments.splitAtFirstSlash(text).map { String($0.0) } ?? text
    // `/…` has an empty first segment; `.`, `..` and `~…` are never buckets.
    if first.isEmpty || first == "." || first == ".." || first.utf8.first == UInt8(ascii: "~") {
      return true
    }
    do {
      try provider.validateBucketName(first)
      return false
    } catch {
      return true
    }
  }

  /// Whether a destination the service refused as existing may be offered for replacing: on
  /// a terminal, when the user gave neither `--force`, `--yes` (go ahead without asking) nor
  /// `--dry-run`.
  var mayAskToReplace: Bool { !force && !yes && !dryRun && Confirm.hasTerminal() }

  /// Runs `transfer` on one object and reports it as `type` (`moved` or `copied`).
  func run(
    _ context: Context, verb: String, type: String,
    transfer: (any ObjectWriting, CopyRequest) async throws(StorageError) -> Void
  ) async throws {
    let provider = try context.provider()
    let (source, destination) = try resolve(context, verb: verb, provider: provider)
    try provider.validateBucketName(source.bucket)
    guard let writer = provider as? any ObjectWriting else {
      throw StorageError(.rejected, "this provider cannot \(verb) objects")
    }
    let output = OutputStream.standardOutput()
    let request = CopyRequest(source: source, destination: destination, overwrite: force)
    if dryRun {
      _ = try await provider.stat(bucket: source.bucket, key: source.key)
      try output.line("would \(verb) \(source) to \(destination)")
      return try output.flush()
    }
    var refused: StorageError?
    do {
      try await transfer(writer, request)
    } catch {
      guard error.kind == .exists, mayAskToReplace else { throw error }
      refused = error
    }
    if let refused {
      // The service refused: ask, and a yes stands for --force (never a stat beforehand).
      guard
        try Confirm.ask(
          "\(destination) exists; replace?", answer: .yes, refusal: "replacing \(destination)")
      else { throw refused }
      var forced = request
      forced.overwrite = true
      try await transfer(writer, forced)
    }
    if context.options.json {
      var line = JSONLine()
      line.string("type", type)
      line.string("from", source.bucket + "/" + source.key)
      line.string("to", destination.bucket + "/" + destination.key)
      try output.write(line)
      try output.flush()
    }
    Diagnostics.note("\(type) \(source) to \(destination)")
  }
}

struct Move: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "mv",
    abstract: "Move (rename) an object on the service; nothing is downloaded.",
    discussion: """
      An existing object at DEST is kept and the move refused (exit 73) unless --force; on a \
      terminal (without --yes) kodo asks instead when the service refuses, and a yes replaces \
      it as --force would. Kodo \
      moves in one request; on OSS the object is copied, the copy checked (size and CRC-64 or \
      ETag), and only then is the source deleted. --json writes \
      {"type":"moved","from":"BUCKET/KEY","to":"BUCKET/KEY"}.

      -r moves every object under the folder SRC (PREFIX means PREFIX/, never PREFIX-other/) \
      into the folder DEST: keys are DEST followed by the path under SRC. Moves go in batches \
      while the listing streams; each existing object at DEST is refused on its own (exit 73 \
      at the end) and the others go on; on a terminal one question at the end offers to \
      replace them all. It is confirmed on a terminal as rm -r is; without one \
      kodo refuses unless --yes. An interrupted mv -r finishes when run again: an object \
      already at DEST with the same content counts as moved and its source is deleted.

      Examples:
        kodo mv photos/2024/a.jpg photos/archive/a.jpg
        kodo mv photos/a.jpg photos/old/         # keeps the name: photos/old/a.jpg
        kodo mv --force photos/new.jpg photos/current.jpg
        kodo mv -r photos/2024/ photos/archive/2024/
      """
  )

  @OptionGroup var options: RemoteTransferOptions
  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func execute(_ context: Context) async throws {
    if options.recursive {
      return try await options.runFolder(
        context, verb: "move", gerund: "moving", type: "moved")
    }
    try await options.run(context, verb: "move", type: "moved", transfer: Self.move)
  }

  /// The move itself, also `kodo browse`'s `r`: one object on the service, an existing
  /// destination kept (`.exists`) unless the request's `overwrite` (`--force`).
  static func move(_ writer: any ObjectWriting, _ request: CopyRequest) async throws(StorageError) {
    try await writer.move(request)
  }
}

struct Copy: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "cp",
    abstract: "Copy an object on the service; nothing is downloaded.",
    discussion: """
      An existing object at DEST is kept and the copy refused (exit 73) unless --force; on a \
      terminal (without --yes) kodo asks instead, and a yes replaces it as --force would. \
      Across buckets of the same service too. To download, use kodo get. --json writes \
      {"type":"copied","from":"BUCKET/KEY","to":"BUCKET/KEY"}.

      -r copies every object under the folder SRC (PREFIX means PREFIX/, never PREFIX-other/) \
      into the folder DEST, in batches while the listing streams, confirmed as rm -r is. An \
      object already at DEST with the same content counts as copied.

      Examples:
        kodo cp photos/2024/a.jpg photos/backup/a.jpg
        kodo cp photos/a.jpg archive                # same key in bucket archive
        kodo cp -r --yes photos/2024 backup/photos/2024/
      """
  )

  @OptionGroup var options: RemoteTransferOptions
  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func execute(_ context: Context) async throws {
    if options.recursive {
      return try await options.runFolder(
        context, verb: "copy", gerund: "copying", type: "copied")
    }
    try await options.run(context, verb: "copy", type: "copied") {
      (writer, request) throws(StorageError) in
      _ = try await writer.copy(request)
    }
  }
}
