import ArgumentParser
import StorageCore

/// `kodo set [BUCKET] KEY… [--mime TYPE] [--meta NAME=VALUE]… [--storage-class C]
/// [--status enabled|disabled]`: metadata changed in place, each option changing only what it
/// names.
struct SetCommand: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "set",
    abstract: "Change objects' content type, metadata, storage class or status.",
    usage: ObjectArguments.usage("set", many: true),
    discussion: """
      Each option changes only what it names: --meta sets the named entries and keeps the \
      others, --mime keeps the metadata. Kodo changes them with chgm, chtype and chstatus; OSS \
      copies the object onto itself (its other headers kept, and only while it is still the \
      object read). --status is Kodo's. Every key is tried; each failure is reported and the \
      exit status is the first failure's (66 for a key that does not exist). A summary line \
      goes to stderr; --json writes one {"type":"set","key":…} line per key changed.

      Examples:
        kodo set photos 2024/a.jpg --mime image/jpeg
        kodo set photos/2024/a.jpg --meta owner=ana --meta project=x
        kodo set photos a.jpg b.jpg --storage-class ia
        kodo set photos old.jpg --status disabled
      """
  )

  @Option(help: ArgumentHelp("The new content type.", valueName: "TYPE"))
  var mime: String?

  @Option(
    help: ArgumentHelp(
      "Set the metadata entry NAME to VALUE, keeping the others (repeatable).",
      valueName: "NAME=VALUE"))
  var meta: [String] = []

  @Option(
    help: ArgumentHelp(
      "Move to storage class C: standard, ia, archive, … (the service's classes, as ls names them).",
      valueName: "C"))
  var storageClass: String?

  @Option(help: ArgumentHelp("Enable or disable the objects (Kodo).", valueName: "STATUS"))
  var status: StatusArgument?

  @OptionGroup var object: ObjectArguments

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  /// `--status`'s values.
  enum StatusArgument: String, ExpressibleByArgument, CaseIterable {
    case enabled, disabled

    var status: ObjectStatus { self == .enabled ? .enabled : .disabled }
  }

  /// Checks the values given; that one is given at all is checked when the command runs, so
  /// that completion can parse a line that names none yet.
  func validate() throws {
    if mime?.isEmpty == true { throw ValidationError("--mime needs a content type") }
    if storageClass?.isEmpty == true { throw ValidationError("--storage-class needs a class") }
    _ = try entries()
  }

  /// `--meta`'s entries, in the order given.
  func entries() throws -> [MetadataEntry] {
    try meta.map { text in
      guard let entry = MetadataEntry(assignment: text) else {
        throw ValidationError(
          "--meta takes NAME=VALUE, not \(DisplayText(quoting: text).text)")
      }
      return entry
    }
  }

  func execute(_ context: Context) async throws {
    guard mime != nil || !meta.isEmpty || storageClass != nil || status != nil else {
      throw ValidationError(
        "say what to change: --mime, --meta NAME=VALUE, --storage-class or --status")
    }
    let (bucket, keys) = try object.resolveMany(context)
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    guard let writer = provider as? any ObjectWriting else {
      throw StorageError(.rejected, "\(provider.serviceName) cannot change objects")
    }
    var statusChanger: (any ObjectStatusChanging)?
    if status != nil {
      guard let changer = provider as? any ObjectStatusChanging else {
        throw ValidationError(
          "--status is Kodo's; \(provider.serviceName) objects have no status to enable or disable (choose Kodo with --provider kodo)"
        )
      }
      statusChanger = changer
    }
    let change = MetadataChange(contentType: mime, metadata: try entries())
    let storageClass = storageClass.map { StorageClass(name: $0, serviceName: $0) }
    let status = status?.status
    var run = EachKey(bucket: bucket, json: context.options.json, type: "set")
    for key in keys {
      let location = ObjectLocation(bucket: bucket, key: key)
      try await run.attempt(key) { () throws(StorageError) in
        if change.contentType != nil || !change.metadata.isEmpty {
          try await writer.changeMetadata(location, change)
        }
        if let storageClass {
          try await writer.changeStorageClass(location, to: storageClass)
        }
        if let status, let statusChanger {
          try await statusChanger.changeStatus(location, to: status)
        }
      }
    }
    try run.finish(done: "changed")
  }
}

/// `kodo restore [BUCKET] KEY… --days N`: archived objects made readable for N days.
struct Restore: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "restore",
    abstract: "Thaw archived objects so that they can be read for a few days.",
    usage: """
      kodo restore --days <N> [<options>] [BUCKET] KEY
      kodo restore --days <N> [<options>] BUCKET/KEY
      kodo restore --days <N> [<options>] BUCKET KEY...
      """,
    discussion: """
      Kodo restoreAr, OSS RestoreObject. The service thaws the object in the background; kodo \
      stat shows the restore state (restoring, then restored). A restore already under way is \
      not an error; an object that is not archived is. Every key is tried; each failure is \
      reported and the exit status is the first failure's. A summary line goes to stderr; \
      --json writes one {"type":"restore","key":…,"days":N} line per key.

      Examples:
        kodo restore photos 2019/a.jpg --days 3
        kodo restore --days 1 photos/2019/a.jpg photos/2019/b.jpg
        kodo stat photos 2019/a.jpg      # restoring, then restored
      """
  )

  @Option(help: ArgumentHelp("Keep the restored copy readable for N days, 1-7.", valueName: "N"))
  var days: Int?

  @OptionGroup var object: ObjectArguments

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  /// Checks `--days` when given; that it is given at all is checked when the command runs, so
  /// that completion can parse a line without it.
  func validate() throws {
    if let days, !(1...7).contains(days) {
      throw ValidationError("--days is 1 to 7, not \(days)")
    }
  }

  func execute(_ context: Context) async throws {
    guard let days else {
      throw ValidationError(
        "say for how long: --days N keeps the restored copy readable for N days (1 to 7)")
    }
    let (bucket, keys) = try object.resolveMany(context)
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    guard let writer = provider as? any ObjectWriting else {
      throw StorageError(.rejected, "\(provider.serviceName) cannot restore objects")
    }
    var run = EachKey(bucket: bucket, json: context.options.json, type: "restore", days: days)
    for key in keys {
      let location = ObjectLocation(bucket: bucket, key: key)
      try await run.attempt(key) { () throws(StorageError) in
        try await writer.restore(location, days: days)
      }
    }
    try run.finish(done: "asked to restore", after: " for \(days) \(days == 1 ? "day" : "days")")
  }
}

/// One change tried on every key in turn: each success reported (`--json`: one
/// `{"type":…,"key":…}` line), each failure reported on its own, a summary on stderr at the
/// end, and the exit status the first failure's.
struct EachKey {
  let bucket: String
  let json: Bool
  let type: String
  var days: Int?
  private let output = OutputStream.standardOutput()
  private var tried = 0
  private var done = 0
  private var missing = 0
  private var firstFailure: Int32?

  init(bucket: String, json: Bool, type: String, days: Int? = nil) {
    self.bucket = bucket
    self.json = json
    self.type = type
    self.days = days
  }

  /// Runs `change` for `key` and reports how it went; only a failure to write the report
  /// throws.
  mutating func attempt(_ key: String, _ change: () async throws(StorageError) -> Void)
    async throws
  {
    tried += 1
    do {
      try await change()
    } catch {
      try output.flush()
      if error.kind == .notFound { missing += 1 }
      let status = ErrorReporting.report(error, notes: [], json: json)
      if firstFailure == nil, status != 0 { firstFailure = status }
      return
    }
    done += 1
    guard json else { return }
    var line = JSONLine()
    line.string("type", type)
    line.string("key", key)
    if let days { line.int("days", Int64(days)) }
    try output.write(line)
    try output.flush()
  }

  /// Writes the summary (`done` names what happened, `after` follows the bucket) and throws
  /// the first failure's exit status.
  func finish(done verb: String, after: String = "") throws {
    try output.flush()
    var summary: DisplayText =
      "\(verb) \(done) of \(tried) \(tried == 1 ? "object" : "objects") in bucket "
    summary = summary + DisplayText(quoting: bucket) + DisplayText(escaping: after)
    if missing > 0 { summary = summary + "; \(missing) not found" }
    let failed = tried - done - missing
    if failed > 0 { summary = summary + "; \(failed) failed" }
    Diagnostics.note(summary)
    if let firstFailure { throw ExitCode(firstFailure) }
  }
}
