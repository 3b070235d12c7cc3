import ArgumentParser
import StorageCore

/// `kodo mv SRC DEST` and `kodo cp SRC DEST`: one object, server-side, never replacing an
/// existing destination unless `--force`.
struct RemoteTransferOptions: ParsableArguments {
  @Flag(help: "Replace an existing object at DEST.")
  var force = false

  @Flag(help: "Print what would be done; change nothing.")
  var dryRun = false

  @Argument(
    help: ArgumentHelp(
      "The object (BUCKET/KEY, also oss://BUCKET/KEY), then where it goes: BUCKET/KEY, or a folder (BUCKET or BUCKET/PREFIX/) that keeps its name.",
      valueName: "SRC DEST"),
    completion: ShellCompletion.objectArguments)
  var arguments: [String] = []

  /// The source and the destination; a local path on either side is refused with what to run
  /// instead.
  func resolve(_ context: Context, verb: String, provider: any StorageProvider) throws -> (
    ObjectLocation, ObjectLocation
  ) {
    guard arguments.count == 2 else {
      throw ValidationError("expected SRC DEST: kodo \(verb) BUCKET/KEY BUCKET/KEY")
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
    try await transfer(writer, request)
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
      An existing object at DEST is kept and the move refused (exit 73) unless --force. Kodo \
      moves in one request; on OSS the object is copied, the copy checked (size and CRC-64 or \
      ETag), and only then is the source deleted. --json writes \
      {"type":"moved","from":"BUCKET/KEY","to":"BUCKET/KEY"}.

      Examples:
        kodo mv photos/2024/a.jpg photos/archive/a.jpg
        kodo mv photos/a.jpg photos/old/         # keeps the name: photos/old/a.jpg
        kodo mv --force photos/new.jpg photos/current.jpg
      """
  )

  @OptionGroup var options: RemoteTransferOptions
  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func execute(_ context: Context) async throws {
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
      An existing object at DEST is kept and the copy refused (exit 73) unless --force. \
      Across buckets of the same service too. To download, use kodo get. --json writes \
      {"type":"copied","from":"BUCKET/KEY","to":"BUCKET/KEY"}.

      Examples:
        kodo cp photos/2024/a.jpg photos/backup/a.jpg
        kodo cp photos/a.jpg archive                # same key in bucket archive
      """
  )

  @OptionGroup var options: RemoteTransferOptions
  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func execute(_ context: Context) async throws {
    try await options.run(context, verb: "copy", type: "copied") {
      (writer, request) throws(StorageError) in
      try await writer.copy(request)
    }
  }
}
