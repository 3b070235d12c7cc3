import ArgumentParser
import StorageCore

struct DiskUsage: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "du",
    abstract: "Count the objects and bytes under a prefix, in total and per storage class.",
    discussion: """
      Lists every object under the prefix (as ls -r does) and adds them up; with --depth N, \
      also one line per folder up to N levels below the prefix, each folder after the folders \
      in it (as du -d N). Sizes are human-readable on a terminal, in bytes otherwise. --json \
      writes one {"type":"usage",…} line per folder and a last one for the whole prefix \
      ("total":true). A long scan shows its progress on stderr: redrawn on a terminal, \
      otherwise one line every 10 seconds.

      Examples:
        kodo du photos
        kodo du --depth 1 photos/2024/
        kodo du --json --parallel 8 logs | jq .size
      """
  )

  @OptionGroup var location: PrefixArgument

  @Option(
    help: ArgumentHelp(
      "Also one line per folder up to N levels below the prefix.", valueName: "N"))
  var depth: Int?

  @Option(
    help: ArgumentHelp(
      "List up to N (1-64) top-level folders at once (same totals).", valueName: "N"))
  var parallel: Int?

  @OptionGroup var pageSize: PageSizeOption

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func validate() throws {
    if let depth, depth < 1 { throw ValidationError("--depth must be at least 1") }
    try pageSize.check()
    try ListingChecks.parallel(parallel)
  }

  func execute(_ context: Context) async throws {
    let (bucket, prefix) = try BucketPath.split(location.target, context: context)
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    let output = OutputStream.standardOutput()
    let writer = UsageWriter(
      bucket: bucket, json: context.options.json, humanSizes: output.isTerminal, output: output)
    let progress = Progress.forScan()
    defer { progress.clear() }
    let tally = UsageTally(prefix: prefix, depth: depth, writer: writer, progress: progress)
    do {
      try await RecursiveScan(
        provider: provider, bucket: bucket, prefix: prefix, pageSize: pageSize.entries,
        parallel: parallel
      ).run { objects, _ in
        try tally.add(objects)
        return true
      }
    } catch let failure as CommandFailure {
      throw NotFoundAdvice.forListing(
        failure, bucket: bucket, target: location.target, context: context)
    }
    progress.clear()
    try tally.finish()
    try output.flush()
  }
}

/// The totals of a scan, and the folders being added up when `--depth` is given: keys come in
/// order, so each folder's objects arrive together. The open folders are one chain from level 1
/// down; a folder is written when a key outside it arrives, deepest first (as `du -d N`).
final class UsageTally {
  let prefix: String
  let depth: Int?
  let writer: UsageWriter
  let progress: Progress
  private var total: UsageTotals
  /// The folders holding the last key, level 1 first.
  private var open: [UsageTotals] = []

  init(prefix: String, depth: Int?, writer: UsageWriter, progress: Progress) {
    self.prefix = prefix
    self.depth = depth
    self.writer = writer
    self.progress = progress
    total = UsageTotals(prefix: prefix)
  }

  func add(_ objects: [ObjectEntry]) throws(StorageError) {
    for object in objects {
      total.add(object)
      guard let depth else { continue }
      let chain = UsageTotals.folders(of: object.key, under: prefix, depth: depth)
      // Byte-exact: `caf\u{E9}/` and `cafe\u{301}/` are equal Strings and two folders.
      var kept = 0
      while kept < open.count, kept < chain.count, ExactKey.same(chain[kept], open[kept].prefix) {
        kept += 1
      }
      while open.count > kept, let finished = open.popLast() {
        progress.clear()
        try writer.write(finished, isTotal: false)
      }
      for name in chain[kept...] { open.append(UsageTotals(prefix: name)) }
      for index in open.indices { open[index].add(object) }
    }
    progress.add(objects.count)
  }

  /// Writes the open folders (deepest first) and the total.
  func finish() throws(StorageError) {
    while let folder = open.popLast() { try writer.write(folder, isTotal: false) }
    try writer.write(total, isTotal: true)
  }
}

/// Objects, bytes and bytes per storage class under one prefix.
struct UsageTotals {
  let prefix: String
  private(set) var objects: Int64 = 0
  private(set) var size: Int64 = 0
  private(set) var classes: [String: Int64] = [:]

  init(prefix: String) { self.prefix = prefix }

  mutating func add(_ object: ObjectEntry) {
    objects += 1
    // Sizes are the service's numbers: an absurd total saturates instead of trapping.
    size = Self.saturatingSum(size, object.size)
    classes[object.storageClass.name] = Self.saturatingSum(
      classes[object.storageClass.name] ?? 0, object.size)
  }

  private static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? (b < 0 ? .min : .max) : sum
  }

  /// The folders 1 to `depth` levels below `prefix` that hold `key` (each ending in `/`),
  /// level 1 first: fewer when the key is not that deep.
  static func folders(of key: String, under prefix: String, depth: Int) -> [String] {
    let utf8 = key.utf8
    guard utf8.count >= prefix.utf8.count else { return [] }
    var folders: [String] = []
    var index = utf8.index(utf8.startIndex, offsetBy: prefix.utf8.count)
    while index < utf8.endIndex, folders.count < depth {
      if utf8[index] == UInt8(ascii: "/") {
        folders.append(String(key[..<utf8.index(after: index)]))
      }
      index = utf8.index(after: index)
    }
    return folders
  }
}

/// Writes usage lines: text for people, or the contract's `{"type":"usage",…}`.
struct UsageWriter {
  let bucket: String
  let json: Bool
  let humanSizes: Bool
  let output: OutputStream

  func write(_ usage: UsageTotals, isTotal: Bool) throws(StorageError) {
    let classes = usage.classes.sorted { $0.key < $1.key }
    if json {
      var line = JSONLine()
      line.string("type", "usage")
      line.string("prefix", usage.prefix)
      line.int("objects", usage.objects)
      line.int("size", usage.size)
      var nested: [UInt8] = [UInt8(ascii: "{")]
      for (index, entry) in classes.enumerated() {
        if index > 0 { nested.append(UInt8(ascii: ",")) }
        JSONText.appendString(entry.key, to: &nested)
        nested.append(UInt8(ascii: ":"))
        DecimalText.append(entry.value, to: &nested)
      }
      nested.append(UInt8(ascii: "}"))
      line.raw("storageClasses", json: String(decoding: nested, as: UTF8.self))
      if isTotal { line.bool("total", true) }
      try output.write(line)
      return
    }
    let sizeWidth = humanSizes ? 10 : 14
    // The count right-aligned, the word after it: `1 object ` and `2 objects` line up.
    var text = Human.padLeft(sizeText(usage.size), sizeWidth) + "  "
    text +=
      Human.padLeft("\(usage.objects)", 10) + (usage.objects == 1 ? " object   " : " objects  ")
    let name = DisplayText(escaping: usage.prefix.isEmpty ? bucket : bucket + "/" + usage.prefix)
    text += name
    guard isTotal else { return try output.line(text) }
    let breakdown = classes.map { "\(DisplayText(escaping: $0.key)) " + sizeText($0.value) }
    let oneLine = text + " (total; " + DisplayText.joined(breakdown, separator: "; ") + ")"
    if classes.count <= 1 || oneLine.text.count <= Self.width {
      return try output.line(classes.isEmpty ? text + " (total)" : oneLine)
    }
    // Too wide for one line: the total, then one line per storage class under it.
    try output.line(text + " (total)")
    for (className, bytes) in classes {
      try output.line(
        Human.padLeft(sizeText(bytes), sizeWidth)
          + DisplayText(escaping: String(repeating: " ", count: 22)) + name
          + " (" + DisplayText(escaping: className) + ")")
    }
  }

  /// The widest line a total takes before its classes go on lines of their own.
  static let width = 120

  private func sizeText(_ bytes: Int64) -> DisplayText {
    humanSizes ? Human.size(bytes) : "\(bytes)"
  }
}
