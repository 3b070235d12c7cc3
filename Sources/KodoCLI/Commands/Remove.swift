import ArgumentParser
import StorageCore

struct Remove: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "rm",
    abstract: "Delete objects: keys, keys read from stdin, or a folder and everything under it.",
    discussion: """
      -r deletes the folder PREFIX/ and everything under it (PREFIX without a trailing / still \
      means the folder, never PREFIX-other/; the object named exactly PREFIX stays); -r BUCKET \
      alone deletes the whole bucket's content. Deletes go in batches of up to 1000 keys while \
      the listing streams. More than one key, or any -r, is confirmed on a terminal (a whole \
      bucket by typing its name); without a terminal kodo refuses unless --yes. --dry-run \
      prints what would be deleted and deletes nothing. A key that does not exist, or a -r \
      folder with nothing in it, is reported and the exit status is 66, unless -f. One failing \
      key never stops the others: the exit status is the first failure's. A summary line goes \
      to stderr; --json writes one {"type":"deleted","key":…} line per key.

      Examples:
        kodo rm photos 2024/old.jpg
        kodo rm photos/2024/a.jpg photos/2024/b.jpg --yes
        kodo rm -r --dry-run photos/2023/
        kodo find photos --name '*.tmp' -0 | kodo rm --stdin -0 --yes photos
      """
  )

  @Flag(name: .shortAndLong, help: "Delete the folder BUCKET/PREFIX/ and everything under it.")
  var recursive = false

  @Flag(help: "Read the keys from stdin, one per line (with -0, separated by NUL).")
  var stdin = false

  @Flag(name: .customShort("0"), help: "With --stdin, keys are separated by NUL.")
  var nulSeparated = false

  @Flag(help: "Print what would be deleted; delete nothing.")
  var dryRun = false

  @Flag(name: [.customShort("y"), .long], help: "Delete without asking.")
  var yes = false

  @Flag(name: .shortAndLong, help: "A missing key, or an empty folder, is not an error.")
  var force = false

  @OptionGroup var pageSize: PageSizeOption

  @Argument(
    help: ArgumentHelp(
      "[BUCKET] KEY..., BUCKET/KEY, only BUCKET with --stdin, or BUCKET[/PREFIX] with -r.",
      valueName: "BUCKET KEY"),
    completion: ShellCompletion.objectArguments)
  var arguments: [String] = []

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func validate() throws {
    try pageSize.check()
    if nulSeparated && !stdin { throw ValidationError("-0 goes with --stdin") }
    if recursive && stdin { throw ValidationError("give either -r or --stdin, not both") }
    if recursive && arguments.count > 1 {
      throw ValidationError("-r takes one BUCKET[/PREFIX]")
    }
    if stdin && arguments.count > 1 {
      throw ValidationError("with --stdin, give only the bucket; the keys come from stdin")
    }
  }

  func execute(_ context: Context) async throws {
    if recursive { return try await removeFolder(context) }
    let bucket: String
    var source: KeySource
    if stdin {
      bucket = try context.bucket(arguments.first)
      source = .stdin(
        LineReader(
          fileDescriptor: Runtime.current.standardInput,
          separator: nulSeparated ? 0 : UInt8(ascii: "\n")))
    } else {
      let resolved = try ObjectArguments.bucketAndKeys(arguments, context: context)
      bucket = resolved.bucket
      source = .given(resolved.keys[...])
    }
    let (provider, writer) = try Self.writer(context, bucket: bucket)
    // Two keys are enough to know whether to ask.
    var first: [String] = []
    while first.count < 2, let key = try source.next() { first.append(key) }
    if first.count > 1 && !dryRun && !yes {
      let count: DisplayText =
        if case .given(let keys) = source { "\(keys.count + first.count) objects" } else {
          "the objects named on stdin"
        }
      let question = "delete \(count.text) from bucket " + DisplayText(quoting: bucket) + "?"
      guard
        try Confirm.ask(
          question, answer: .yes, refusal: "deleting \(count.text)", stdinIsInput: stdin)
      else { return Self.declined() }
    }
    let deleter = BatchDeleter(
      writer: writer, bucket: bucket, options: try options(context), checkMissing: true,
      provider: provider)
    do {
      for key in first { try await deleter.add(key) }
      while let key = try source.next() { try await deleter.add(key) }
    } catch {
      await deleter.settle()
      throw error
    }
    try await deleter.finish()
  }

  private func removeFolder(_ context: Context) async throws {
    let (bucket, given) = try BucketPath.split(arguments.first, context: context)
    let (provider, writer) = try Self.writer(context, bucket: bucket)
    let folder = RemoteFolder(
      provider: provider, bucket: bucket, given: given, pageSize: pageSize.entries)
    if !dryRun && !yes {
      switch try await folder.confirm(verb: "delete", gerund: "deleting") {
      case .agreed: break
      case .declined: return Self.declined()
      case .empty: return try Self.nothingUnder(folder.place, force: force)
      }
    }
    let deleter = BatchDeleter(
      writer: writer, bucket: bucket, options: try options(context), checkMissing: false,
      provider: provider)
    let progress = Progress.forScan()
    defer { progress.clear() }
    do {
      try await folder.scan(keysOnly: true) { objects in
        // By index: `for object in objects` would copy each entry (a retain per field).
        for index in objects.indices { try await deleter.add(objects[index].key) }
        progress.add(objects.count)
      }
    } catch {
      progress.clear()
      await deleter.settle()
      throw error
    }
    progress.clear()
    if deleter.seen == 0 { return try Self.nothingUnder(folder.place, force: force) }
    try await deleter.finish()
  }

  private func options(_ context: Context) throws -> BatchDeleter.Options {
    BatchDeleter.Options(
      json: context.options.json, dryRun: dryRun, force: force,
      batchReportsMissing: try context.providerKind().batchReportsMissing)
  }

  private static func writer(_ context: Context, bucket: String) throws -> (
    any StorageProvider, any ObjectWriting
  ) {
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    return (provider, try writer(provider))
  }

  /// The provider's writing side, or why it cannot delete.
  static func writer(_ provider: any StorageProvider) throws(StorageError) -> any ObjectWriting {
    guard let writer = provider as? any ObjectWriting else {
      throw StorageError(.rejected, "this provider cannot delete objects")
    }
    return writer
  }

  private static func declined() {
    Diagnostics.note("nothing deleted")
  }

  private static func nothingUnder(_ place: DisplayText, force: Bool) throws {
    if force {
      Diagnostics.note("nothing to delete in " + place)
      return
    }
    throw StorageError(.notFound, "nothing to delete: no object in \(place.text)")
  }
}

/// Where `rm` takes its keys from: the command line or stdin.
enum KeySource {
  case given(ArraySlice<String>)
  case stdin(LineReader)

  mutating func next() throws(StorageError) -> String? {
    switch self {
    case .given(var keys):
      guard let key = keys.popFirst() else { return nil }
      self = .given(keys)
      return key
    case .stdin(var reader):
      // An empty line names no key (a blank line at the end of a file): skipped.
      var key = try reader.next()
      while key?.isEmpty == true { key = try reader.next() }
      self = .stdin(reader)
      return key
    }
  }
}
