import ArgumentParser
import Foundation
import StorageCore
import SystemPackage

/// `--sort`: what listing entries are ordered by.
enum ListingOrder: String, ExpressibleByArgument, CaseIterable, Sendable {
  case name, size, time

  /// The one comparison behind it.
  var objectOrder: ObjectOrder {
    switch self {
    case .name: .name
    case .size: .size
    case .time: .time
    }
  }
}

/// Sorts any number of objects in bounded memory. Entries are kept as records (`EntryRecord`),
/// ordered through a small table of their order keys (`RecordOrder`), so that sorting moves
/// neither entries nor their strings. Up to `threshold` entries (and at most
/// `batchBytes` of records) are sorted in memory; beyond that, each full batch is sorted and
/// written as a run to an anonymous temporary file (made with `mkstemp`, so mode 0600, and
/// unlinked at once, so nothing is left behind and no other process can open it), and the runs
/// are merged at the end. At most `maximumRuns` files are open: more are merged into one first.
final class ExternalSorter {
  let order: ListingOrder
  let reverse: Bool
  let threshold: Int
  let maximumRuns: Int
  let directory: String
  private let recordOrder: RecordOrder
  /// The records of the batch in memory, one after another.
  private var records: [UInt8] = []
  /// Where each record of the batch begins, with its order key: what the batch sort moves.
  private var table: [(key: RecordOrder.OrderKey, offset: Int)] = []
  private var runs: [Int32] = []
  /// The longest record written to a run: a run's record claiming more is not one of them.
  private var longestRecord = 0

  /// The default number of entries held in memory: about 50 MB of records and their table
  /// (a listing's record is some 170 bytes), unless `batchBytes` comes first.
  static let defaultThreshold = 250_000
  /// The most bytes of records held in memory, whatever their number: with this, 10,000,000
  /// listing entries make fewer than `maximumRuns` runs, which are merged in one pass.
  static let batchBytes = 32 << 20
  /// A test lowers this to reach the external path with a few entries.
  @TaskLocal static var thresholdOverride: Int?

  init(
    order: ListingOrder, reverse: Bool, directory: String,
    threshold: Int = ExternalSorter.thresholdOverride ?? ExternalSorter.defaultThreshold,
    maximumRuns: Int = 64
  ) {
    self.order = order
    self.reverse = reverse
    self.directory = directory
    self.threshold = max(1, threshold)
    self.maximumRuns = max(2, maximumRuns)
    self.recordOrder = RecordOrder(order: order.objectOrder, reverse: reverse)
  }

  deinit {
    for run in runs { close(run) }
  }

  /// Whether `a` comes before `b` (`ObjectOrder`: keys break ties; a listing never repeats
  /// one): the order the records are sorted in.
  func precedes(_ a: ObjectEntry, _ b: ObjectEntry) -> Bool {
    order.objectOrder.precedes(
      sizes: (a.size, b.size), times: (a.putTime.hundredNanoseconds, b.putTime.hundredNanoseconds),
      reversed: reverse
    ) { KeyBytes.compare(a.key, b.key) }
  }

  func add(_ entries: [ObjectEntry]) throws(StorageError) {
    for entry in entries {
      let offset = records.count
      EntryRecord.append(entry, to: &records)
      let key = records.withUnsafeBytes {
        recordOrder.key(UnsafeRawBufferPointer(rebasing: $0[offset...]))
      }
      table.append((key, offset))
      if table.count >= threshold || records.count >= Self.batchBytes { try spill() }
    }
  }

  /// Hands every entry to `body` in order, in batches.
  func drain(_ body: ([ObjectEntry]) throws(StorageError) -> Void) throws(StorageError) {
    if runs.isEmpty {
      sortBatch()
      var batch: [ObjectEntry] = []
      batch.reserveCapacity(1000)
      try records.withUnsafeBufferPointer { (buffer) throws(StorageError) in
        let all = UnsafeRawBufferPointer(buffer)
        for (_, offset) in table {
          batch.append(try EntryRecord.decode(Self.record(all, at: offset)))
          if batch.count >= 1000 {
            try body(batch)
            batch.removeAll(keepingCapacity: true)
          }
        }
      }
      if !batch.isEmpty { try body(batch) }
      records = []
      table = []
      return
    }
    if !table.isEmpty { try spill() }
    // The batch's memory is not needed again: the merge holds the runs' buffers instead.
    records = []
    table = []
    var batch: [ObjectEntry] = []
    batch.reserveCapacity(1000)
    try merge(runs) { (record) throws(StorageError) in
      batch.append(try EntryRecord.decode(record))
      if batch.count >= 1000 {
        try body(batch)
        batch.removeAll(keepingCapacity: true)
      }
    }
    if !batch.isEmpty { try body(batch) }
    for run in runs { close(run) }
    runs.removeAll()
  }

  /// The whole record at `offset` of `bytes` (one this sorter wrote).
  private static func record(_ bytes: UnsafeRawBufferPointer, at offset: Int)
    -> UnsafeRawBufferPointer
  {
    let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
    return UnsafeRawBufferPointer(rebasing: rest[..<(EntryRecord.length(rest) ?? 0)])
  }

  /// Orders the table of the batch in memory.
  private func sortBatch() {
    let recordOrder = self.recordOrder
    records.withUnsafeBytes { all in
      table.sort { a, b in
        recordOrder.precedes(a.key, b.key) {
          KeyBytes.compare(
            RecordOrder.keyBytes(UnsafeRawBufferPointer(rebasing: all[a.offset...])),
            RecordOrder.keyBytes(UnsafeRawBufferPointer(rebasing: all[b.offset...])))
        }
      }
    }
  }

  /// Writes the batch in memory, sorted, as a run.
  private func spill() throws(StorageError) {
    sortBatch()
    let file = try Self.temporaryFile(in: directory)
    do {
      var out = RunWriter(file: file)
      var longest = longestRecord
      try records.withUnsafeBufferPointer { (buffer) throws(StorageError) in
        let all = UnsafeRawBufferPointer(buffer)
        for (_, offset) in table {
          let record = Self.record(all, at: offset)
          longest = max(longest, record.count)
          try out.append(record)
        }
      }
      longestRecord = longest
      try out.flush()
    } catch {
      close(file)
      throw error
    }
    records.removeAll(keepingCapacity: true)
    table.removeAll(keepingCapacity: true)
    runs.append(file)
    if runs.count >= maximumRuns {
      // Too many files open: merge them into one run.
      let merged = try Self.temporaryFile(in: directory)
      do {
        var out = RunWriter(file: merged)
        try merge(runs) { (record) throws(StorageError) in try out.append(record) }
        try out.flush()
      } catch {
        close(merged)
        throw error
      }
      for run in runs { close(run) }
      runs = [merged]
    }
  }

  /// Merges sorted runs (each read from its start), handing each record to `body` in order
  /// (the bytes are valid during the call only).
  private func merge(
    _ files: [Int32], into body: (UnsafeRawBufferPointer) throws(StorageError) -> Void
  ) throws(StorageError) {
    var readers: [RunReader] = []
    for file in files {
      guard lseek(file, 0, SEEK_SET) == 0 else {
        throw HeldOutput.ioError("read", errno)
      }
      let reader = RunReader(file: file, longestRecord: longestRecord, order: recordOrder)
      if try reader.advance() { readers.append(reader) }
    }
    var heap = RunHeap(readers: readers, order: recordOrder)
    while let first = heap.first {
      try first.withHead { (record) throws(StorageError) in try body(record) }
      try heap.advanceFirst()
    }
  }

  private static func temporaryFile(in directory: String) throws(StorageError) -> Int32 {
    var template = Array((directory + "/kodo-sort-XXXXXX").utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
      guard let base = buffer.baseAddress else { return -1 }
      let descriptor = Descriptors.temporaryFile(base)
      if descriptor >= 0 { unlink(base) }
      return descriptor
    }
    guard descriptor >= 0 else { throw HeldOutput.ioError("create", errno) }
    return descriptor
  }
}

@available(*, unavailable)
extension ExternalSorter: Sendable {}
