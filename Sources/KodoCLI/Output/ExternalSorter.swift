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

/// Sorts any number of objects in bounded memory: up to `threshold` entries are sorted in
/// memory; beyond that, each full batch is sorted and written as a run to an anonymous temporary
/// file (made with `mkstemp`, so mode 0600, and unlinked at once, so nothing is left behind and
/// no other process can open it), and the runs are merged at the end. At most `maximumRuns`
/// files are open: more are merged into one first.
final class ExternalSorter {
  let order: ListingOrder
  let reverse: Bool
  let threshold: Int
  let maximumRuns: Int
  let directory: String
  private var memory: [ObjectEntry] = []
  private var runs: [Int32] = []

  /// The default number of entries held in memory (well under 100 MB of entries).
  static let defaultThreshold = 100_000
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
  }

  deinit {
    for run in runs { close(run) }
  }

  /// Whether `a` comes before `b` (`ObjectOrder`: keys break ties; a listing never repeats
  /// one).
  func precedes(_ a: ObjectEntry, _ b: ObjectEntry) -> Bool {
    order.objectOrder.precedes(
      sizes: (a.size, b.size), times: (a.putTime, b.putTime), reversed: reverse
    ) { KeyBytes.compare(a.key, b.key) }
  }

  func add(_ entries: [ObjectEntry]) throws(StorageError) {
    memory.append(contentsOf: entries)
    if memory.count >= threshold { try spill() }
  }

  /// Hands every entry to `body` in order, in batches.
  func drain(_ body: ([ObjectEntry]) throws(StorageError) -> Void) throws(StorageError) {
    if runs.isEmpty {
      memory.sort(by: precedes)
      var start = 0
      while start < memory.count {
        let end = min(start + 1000, memory.count)
        try body(Array(memory[start..<end]))
        start = end
      }
      memory.removeAll()
      return
    }
    if !memory.isEmpty { try spill() }
    try merge(runs, into: body)
    for run in runs { close(run) }
    runs.removeAll()
  }

  private func spill() throws(StorageError) {
    memory.sort(by: precedes)
    let file = try Self.temporaryFile(in: directory)
    var buffer: [UInt8] = []
    buffer.reserveCapacity(1 << 20)
    do {
      for entry in memory {
        EntryRecord.append(entry, to: &buffer)
        if buffer.count >= 1 << 20 {
          try Self.write(buffer, to: file)
          buffer.removeAll(keepingCapacity: true)
        }
      }
      try Self.write(buffer, to: file)
    } catch {
      close(file)
      throw error
    }
    memory.removeAll(keepingCapacity: true)
    runs.append(file)
    if runs.count >= maximumRuns {
      // Too many files open: merge them into one run.
      let merged = try Self.temporaryFile(in: directory)
      var out: [UInt8] = []
      do {
        try merge(runs) { (batch: [ObjectEntry]) throws(StorageError) in
          for entry in batch { EntryRecord.append(entry, to: &out) }
          if out.count >= 1 << 20 {
            try Self.write(out, to: merged)
            out.removeAll(keepingCapacity: true)
          }
        }
        try Self.write(out, to: merged)
      } catch {
        close(merged)
        throw error
      }
      for run in runs { close(run) }
      runs = [merged]
    }
  }

  /// Merges sorted runs (each read from its start) with a binary heap.
  private func merge(
    _ files: [Int32], into body: ([ObjectEntry]) throws(StorageError) -> Void
  ) throws(StorageError) {
    var readers: [RunReader] = []
    for file in files {
      guard lseek(file, 0, SEEK_SET) == 0 else {
        throw HeldOutput.ioError("read", errno)
      }
      readers.append(RunReader(file: file))
    }
    var heap: [(entry: ObjectEntry, run: Int)] = []
    func less(_ i: Int, _ j: Int) -> Bool { precedes(heap[i].entry, heap[j].entry) }
    func push(_ item: (entry: ObjectEntry, run: Int)) {
      heap.append(item)
      var child = heap.count - 1
      while child > 0 {
        let parent = (child - 1) / 2
        guard less(child, parent) else { break }
        heap.swapAt(child, parent)
        child = parent
      }
    }
    func popFirst() -> (entry: ObjectEntry, run: Int)? {
      guard !heap.isEmpty else { return nil }
      heap.swapAt(0, heap.count - 1)
      let first = heap.removeLast()
      var parent = 0
      while true {
        let left = 2 * parent + 1
        let right = left + 1
        var smallest = parent
        if left < heap.count, less(left, smallest) { smallest = left }
        if right < heap.count, less(right, smallest) { smallest = right }
        guard smallest != parent else { break }
        heap.swapAt(parent, smallest)
        parent = smallest
      }
      return first
    }
    for index in readers.indices {
      if let entry = try readers[index].next() { push((entry, index)) }
    }
    var batch: [ObjectEntry] = []
    while let (entry, run) = popFirst() {
      batch.append(entry)
      if batch.count >= 1000 {
        try body(batch)
        batch.removeAll(keepingCapacity: true)
      }
      if let next = try readers[run].next() { push((next, run)) }
    }
    if !batch.isEmpty { try body(batch) }
  }

  private static func temporaryFile(in directory: String) throws(StorageError) -> Int32 {
    var template = Array((directory + "/kodo-sort-XXXXXX").utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
      guard let base = buffer.baseAddress else { return -1 }
      let descriptor = mkstemp(base)
      if descriptor >= 0 { unlink(base) }
      return descriptor
    }
    guard descriptor >= 0 else { throw HeldOutput.ioError("create", errno) }
    return descriptor
  }

  private static func write(_ bytes: [UInt8], to file: Int32) throws(StorageError) {
    if let code = FileDescriptorWriter.writeAll(bytes, to: file) {
      throw HeldOutput.ioError("write", code)
    }
  }

  /// Reads the records of one run, 1 MiB at a time.
  private struct RunReader {
    let file: Int32
    var buffer: [UInt8] = []
    var offset = 0
    var atEnd = false

    init(file: Int32) { self.file = file }

    mutating func next() throws(StorageError) -> ObjectEntry? {
      while true {
        if let entry = try EntryRecord.read(buffer, at: &offset) { return entry }
        if atEnd {
          guard offset == buffer.count else {
            throw StorageError(
              .localIO, "a temporary file of the sort ends in the middle of a record")
          }
          return nil
        }
        buffer.removeFirst(offset)
        offset = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        let count = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw HeldOutput.ioError("read", errno) }
        if count == 0 { atEnd = true } else { buffer.append(contentsOf: chunk[..<count]) }
      }
    }
  }
}

@available(*, unavailable)
extension ExternalSorter: Sendable {}
