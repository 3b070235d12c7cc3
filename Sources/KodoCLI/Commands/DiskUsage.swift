import ArgumentParser
import StorageCore

struct DiskUsage: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "du",
    abstract: "Count the objects and bytes under a prefix, in total and per storage class.",
    discussion: """
      Lists every object under the prefix (as ls -r does) and adds them up; with --depth N, \
      also one line per folder N levels below the prefix (objects above that depth count in \
      the total only). Sizes are human-readable on a terminal, in bytes otherwise. --json writes \
      one {"type":"usage",…} line per folder and a last one for the whole prefix \
      ("total":true). A long scan shows its progress on stderr: redrawn on a terminal, \
      otherwise one line every 10 seconds.

      Examples:
        kodo du photos
        kodo du --depth 1 photos/2024/
        kodo du --json --parallel 8 logs | jq .size
      """
  )

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  @OptionGroup var location: PrefixArgument

  @Option(
    help: ArgumentHelp(
      "Also one line per folder this many levels below the prefix.", valueName: "N"))
  var depth: Int?

  @Option(
    help: ArgumentHelp(
      "List up to N (1-64) top-level folders at once (same totals).", valueName: "N"))
  var parallel: Int?

  @OptionGroup var pageSize: PageSizeOption

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

/// The totals of a scan, and the folder being added up when `--depth` is given: keys come in
/// order, so each folder's objects arrive together and a folder is written when the next begins.
final class UsageTally {
  let prefix: String
  let depth: Int?
  let writer: UsageWriter
  let progress: Progress
  private var total: UsageTotals
  private var folder: UsageTotals?

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
      let name = UsageTotals.folder(of: object.key, under: prefix, depth: depth)
      if !isCurrent(name) {
        if let finished = folder {
          progress.clear()
          try writer.write(finished, isTotal: false)
        }
        folder = name.map { UsageTotals(prefix: $0) }
      }
      folder?.add(object)
    }
    progress.add(objects.count)
  }

  /// Whether `name` is the folder being added up: both none, or the same bytes (`caf\u{E9}/` and
  /// `cafe\u{301}/` are equal Strings and two folders).
  private func isCurrent(_ name: String?) -> Bool {
    switch (name, folder) {
    case (nil, nil): true
    case (let name?, let folder?): ExactKey.same(name, folder.prefix)
    default: false
    }
  }

  /// Writes the last folder and the total.
  func finish() throws(StorageError) {
    if let folder { try writer.write(folder, isTotal: false) }
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

  /// The folder `depth` levels below `prefix` that holds `key` (ending in `/`), or `nil` when
  /// the key is not that deep.
  static func folder(of key: String, under prefix: String, depth: Int) -> String? {
    let utf8 = key.utf8
    guard utf8.count >= prefix.utf8.count else { return nil }
    var index = utf8.index(utf8.startIndex, offsetBy: prefix.utf8.count)
    var remaining = depth
    while index < utf8.endIndex {
      if utf8[index] == UInt8(ascii: "/") {
        remaining -= 1
        if remaining == 0 { return String(key[..<utf8.index(after: index)]) }
      }
      index = utf8.index(after: index)
    }
    return nil
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
    var text = Human.padLeft(sizeText(usage.size), humanSizes ? 10 : 14)
    let objects: DisplayText = "\(usage.objects) object\(usage.objects == 1 ? "" : "s")"
    text += "  " + Human.padLeft(objects, 16) + "  "
    text += DisplayText(escaping: usage.prefix.isEmpty ? bucket : bucket + "/" + usage.prefix)
    if isTotal {
      text += " (total"
      for (name, bytes) in classes { text += "; \(DisplayText(escaping: name)) " + sizeText(bytes) }
      text += ")"
    }
    try output.line(text)
  }

  private func sizeText(_ bytes: Int64) -> DisplayText {
    humanSizes ? Human.size(bytes) : "\(bytes)"
  }
}
