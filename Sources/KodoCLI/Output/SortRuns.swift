import Foundation
import StorageCore

/// Writes records to a run of the external sort, 1 MiB at a time.
struct RunWriter {
  let file: Int32
  private var buffer: [UInt8] = []

  init(file: Int32) {
    self.file = file
    buffer.reserveCapacity(1 << 20)
  }

  mutating func append(_ record: UnsafeRawBufferPointer) throws(StorageError) {
    buffer.append(contentsOf: record)
    if buffer.count >= 1 << 20 { try flush() }
  }

  mutating func flush() throws(StorageError) {
    if let code = FileDescriptorWriter.writeAll(buffer, to: file) {
      throw HeldOutput.ioError("write", code)
    }
    buffer.removeAll(keepingCapacity: true)
  }
}

/// Reads the records of one run, 256 KiB at a time (so 64 runs merged hold 16 MiB): `advance`
/// moves to the next whole record (the head), which stays in the buffer, with its order key,
/// until the next `advance`.
final class RunReader {
  private let file: Int32
  private let order: RecordOrder
  /// The longest record the run can hold: a length beyond it is not one the sorter wrote.
  private let longestRecord: Int
  private var buffer: [UInt8]
  /// The bytes read and not yet passed: `start..<end` of `buffer`, the head first.
  private var start = 0
  private var end = 0
  private var headLength = 0
  /// The head's order key.
  private(set) var key = RecordOrder.OrderKey(field: 0, prefix: 0)

  init(file: Int32, longestRecord: Int, order: RecordOrder) {
    self.file = file
    self.order = order
    self.longestRecord = longestRecord
    buffer = [UInt8](repeating: 0, count: max(1 << 18, longestRecord))
  }

  /// Moves to the next record: `false` at the run's end.
  func advance() throws(StorageError) -> Bool {
    start += headLength
    headLength = 0
    while true {
      let available = end - start
      if available >= 4 {
        let length = buffer.withUnsafeBytes { all in
          EntryRecord.claimedLength(UnsafeRawBufferPointer(rebasing: all[start..<end]))
        }
        guard length <= longestRecord else { throw Self.changed }
        if length <= available {
          let key = buffer.withUnsafeBytes { all -> RecordOrder.OrderKey? in
            let record = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
            return EntryRecord.hasHead(record) ? order.key(record) : nil
          }
          guard let key else { throw Self.changed }
          self.key = key
          headLength = length
          return true
        }
      }
      // The head is not whole: move what is left to the front and read more after it.
      if start > 0 {
        let (from, count) = (start, available)
        buffer.withUnsafeMutableBytes { all in
          all.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[from..<(from + count)]))
        }
        (start, end) = (0, available)
      }
      let count = buffer.withUnsafeMutableBytes { all in
        let free = UnsafeMutableRawBufferPointer(rebasing: all[end...])
        return read(file, free.baseAddress, free.count)
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw HeldOutput.ioError("read", errno)
      }
      if count == 0 {
        guard available == 0 else {
          throw StorageError(
            .localIO, "a temporary file of the sort ends in the middle of a record")
        }
        return false
      }
      end += count
    }
  }

  /// Calls `body` with the head's bytes (valid during the call only).
  func withHead<Result, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let (start, length) = (self.start, headLength)
    return try buffer.withUnsafeBufferPointer { (all) throws(Failure) in
      try body(
        UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(all)[start..<(start + length)]))
    }
  }

  private static var changed: StorageError {
    StorageError(.localIO, "a temporary file of the sort was changed while it was read")
  }
}

/// The runs being merged, as a binary heap of their readers by their heads: the first is the
/// one whose head comes next.
struct RunHeap {
  private var readers: [RunReader]
  private let order: RecordOrder

  /// The heap of `readers`, each on its first record.
  init(readers: [RunReader], order: RecordOrder) {
    self.readers = readers
    self.order = order
    for index in stride(from: readers.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
  }

  /// The reader whose head comes next; `nil` when every run is done.
  var first: RunReader? { readers.first }

  /// Moves the first reader past its head.
  mutating func advanceFirst() throws(StorageError) {
    guard let first = readers.first else { return }
    if try !first.advance() {
      readers.swapAt(0, readers.count - 1)
      readers.removeLast()
    }
    siftDown(0)
  }

  private func precedes(_ a: RunReader, _ b: RunReader) -> Bool {
    order.precedes(a.key, b.key) {
      a.withHead { x in
        b.withHead { y in KeyBytes.compare(RecordOrder.keyBytes(x), RecordOrder.keyBytes(y)) }
      }
    }
  }

  private mutating func siftDown(_ index: Int) {
    var parent = index
    while true {
      let left = 2 * parent + 1
      guard left < readers.count else { return }
      var child = left
      if left + 1 < readers.count, precedes(readers[left + 1], readers[left]) { child = left + 1 }
      guard precedes(readers[child], readers[parent]) else { return }
      readers.swapAt(parent, child)
      parent = child
    }
  }
}
