import Synchronization

/// The body of a request, read for the wire as the transport sends it (never loaded whole by the
/// transport): bytes in memory, a range of a file read with `pread`, or a stream.
///
/// Bytes and file ranges are rewindable: a retried attempt, or libcurl re-sending on a fresh
/// connection, reads them again from their start. A stream is read once: an attempt that read any
/// of its bytes can never be repeated (``canBeSent`` turns `false`), so the pipeline does not
/// retry it.
///
/// Observers (``observed(by:)``) see the bytes exactly as they are handed to the wire, in order,
/// and are restarted whenever the body starts again from its beginning, so a running digest
/// (``StreamedDigest``) or a progress count describes the bytes of the last attempt only.
public struct RequestBody: Sendable, Equatable {
  /// Where the bytes come from.
  public enum Source: Sendable, Equatable {
    /// Bytes in memory.
    case bytes([UInt8])
    /// `length` bytes of the open file `descriptor` from `offset`, read with `pread` (so the
    /// descriptor's own offset is never used or moved, and parts of one file can be read at once).
    /// The caller keeps the descriptor open until the request is answered.
    case file(descriptor: Int32, offset: Int64, length: Int64)
    /// A stream, read once.
    case stream(RequestBodyStream)
  }

  /// Where the bytes come from.
  public var source: Source
  /// Told of the bytes as they are read for the wire, and of every restart from the beginning.
  public var observers: [any RequestBodyObserver]

  /// A body from `source`, with no observers.
  public init(_ source: Source) {
    self.source = source
    observers = []
  }

  /// No body.
  public static let empty = RequestBody(.bytes([]))

  /// Bytes in memory.
  public static func bytes(_ bytes: [UInt8]) -> RequestBody { RequestBody(.bytes(bytes)) }

  /// `length` bytes of the open file `descriptor` from `offset`, read with `pread`.
  public static func file(descriptor: Int32, offset: Int64, length: Int64) -> RequestBody {
    RequestBody(.file(descriptor: descriptor, offset: offset, length: length))
  }

  /// The bytes of `stream`, read once.
  public static func stream(_ stream: RequestBodyStream) -> RequestBody {
    RequestBody(.stream(stream))
  }

  /// This body, with `observer` told of its bytes too.
  public func observed(by observer: any RequestBodyObserver) -> RequestBody {
    var copy = self
    copy.observers.append(observer)
    return copy
  }

  /// The number of bytes, when known (a stream may not know it): the `Content-Length`.
  public var length: Int64? {
    switch source {
    case .bytes(let bytes): Int64(bytes.count)
    case .file(_, _, let length): length
    case .stream(let stream): stream.length
    }
  }

  /// Whether the body has no bytes at all.
  public var isEmpty: Bool { length == 0 }

  /// Whether the body can be read again from its start (bytes and file ranges can; streams not).
  public var isRewindable: Bool {
    if case .stream = source { return false }
    return true
  }

  /// Whether an attempt can still send the whole body: always for a rewindable body, and for a
  /// stream only until its first byte was read.
  public var canBeSent: Bool {
    if case .stream(let stream) = source { return stream.bytesRead == 0 }
    return true
  }

  /// The bytes, when they are in memory (what a signature over a form body needs).
  public var inMemoryBytes: [UInt8]? {
    if case .bytes(let bytes) = source { return bytes }
    return nil
  }

  public static func == (lhs: RequestBody, rhs: RequestBody) -> Bool {
    lhs.source == rhs.source
      && lhs.observers.map { ObjectIdentifier($0) } == rhs.observers.map { ObjectIdentifier($0) }
  }
}

/// Told of a request body's bytes as the transport reads them for the wire. Called on the
/// transfer's own thread, never concurrently for one body.
public protocol RequestBodyObserver: AnyObject, Sendable {
  /// The body starts (again) from its first byte: forget what was seen before.
  func bodyRestarted()
  /// `bytes` were read for the wire, after the ones seen since the last restart.
  func bodyRead(_ bytes: UnsafeRawBufferPointer)
}

extension StreamedDigest: RequestBodyObserver {
  /// The body starts again: back to the digest of no bytes (the kept ones).
  public func bodyRestarted() { restart() }

  /// Adds the bytes read.
  public func bodyRead(_ bytes: UnsafeRawBufferPointer) { update(bytes) }
}

/// Counts the bytes of a body read for the wire in the current attempt and reports each change:
/// upload progress.
public final class BodyProgress: RequestBodyObserver {
  private let count = Atomic<Int64>(0)
  private let report: @Sendable (_ sent: Int64, _ delta: Int64) -> Void

  /// Calls `report` with the bytes read in this attempt so far and the change (negative when the
  /// body restarts).
  public init(_ report: @escaping @Sendable (_ sent: Int64, _ delta: Int64) -> Void) {
    self.report = report
  }

  /// The bytes read for the wire since the last restart.
  public var sent: Int64 { count.load(ordering: .relaxed) }

  public func bodyRestarted() {
    let previous = count.exchange(0, ordering: .relaxed)
    if previous != 0 { report(0, -previous) }
  }

  public func bodyRead(_ bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty else { return }
    let now = count.add(Int64(bytes.count), ordering: .relaxed).newValue
    report(now, Int64(bytes.count))
  }
}

/// A body read once, in order, from a function (standard input, a pipe, a generator).
///
/// `read` fills as much of the buffer as it likes and returns the number of bytes written, `0`
/// at the end; it runs on the transfer's own thread (never the Swift cooperative pool), so it may
/// block. With a known `length`, the stream must give exactly that many bytes.
public final class RequestBodyStream: Sendable, Equatable {
  /// The number of bytes the stream gives, when known.
  public let length: Int64?
  private let produce: @Sendable (UnsafeMutableRawBufferPointer) throws(StorageError) -> Int
  private let consumed = Atomic<Int64>(0)

  /// A stream of `length` bytes (or an unknown number) that `read` produces.
  public init(
    length: Int64?,
    read: @escaping @Sendable (UnsafeMutableRawBufferPointer) throws(StorageError) -> Int
  ) {
    self.length = length
    produce = read
  }

  /// How many bytes were read from the stream so far.
  public var bytesRead: Int64 { consumed.load(ordering: .relaxed) }

  /// Reads the next bytes into `buffer`; `0` at the end.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(StorageError) -> Int {
    guard !buffer.isEmpty else { return 0 }
    let count = try produce(buffer)
    guard (0...buffer.count).contains(count) else {
      throw StorageError(.localIO, "a request body stream returned an impossible byte count")
    }
    consumed.add(Int64(count), ordering: .relaxed)
    return count
  }

  public static func == (lhs: RequestBodyStream, rhs: RequestBodyStream) -> Bool { lhs === rhs }
}
