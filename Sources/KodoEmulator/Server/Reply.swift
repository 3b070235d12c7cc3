import NIOCore
import NIOHTTP1
import StorageCore

/// A response the connection handler writes.
struct Reply: Sendable {
  /// A body: bytes in memory, or part of an object read as it is sent.
  enum Body: Sendable {
    case buffer(ByteBuffer)
    case object(ObjectBody, start: Int64, length: Int64)
    /// Bytes known at once, sent (chunked) before `rest` makes the others: a listing names the
    /// marker that continues it first, so the client can ask for the next page while this one
    /// is still being written.
    case lead(ByteBuffer, rest: @Sendable () -> ByteBuffer)

    /// The length of a body in memory or of an object's part; a `lead` body is made whole first
    /// (`whole`).
    var length: Int64 {
      switch self {
      case .buffer(let buffer): Int64(buffer.readableBytes)
      case .object(_, _, let length): length
      case .lead: whole.length
      }
    }

    /// The body with a `lead` made whole, in one buffer.
    var whole: Body {
      guard case .lead(var first, let rest) = self else { return self }
      var more = rest()
      first.writeBuffer(&more)
      return .buffer(first)
    }
  }

  var status: HTTPResponseStatus
  /// Headers other than `Content-Length` and `Connection`, which the handler adds.
  var headers: [(String, String)]
  var body: Body
  /// `false` for `HEAD`: the head announces the length, no body follows.
  var sendsBody = true

  /// The fault `wrong-digest`: OSS's `x-oss-hash-crc64ecma` header, else the first `"hash":"`
  /// value of a JSON body (Kodo's upload answers), changed in one place.
  mutating func changeDigest() {
    if let index = headers.firstIndex(where: { $0.0.lowercased() == "x-oss-hash-crc64ecma" }) {
      headers[index].1 = String((UInt64(headers[index].1) ?? 0) &+ 1)
      return
    }
    guard case .buffer(var buffer) = body.whole else { return }
    let bytes = Array(buffer.readableBytesView)
    let marker = Array(#""hash":""#.utf8)
    guard let start = ByteChunks.find(marker, in: bytes, from: 0) else { return }
    let at = start + marker.count
    guard at < bytes.count, bytes[at] != UInt8(ascii: "\"") else { return }
    let changed: UInt8 = bytes[at] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    buffer.setInteger(changed, at: buffer.readerIndex + at)
    body = .buffer(buffer)
  }

  /// Replaces the `Date` header with `unixSeconds`.
  mutating func setDate(_ unixSeconds: Int64) {
    headers.removeAll { $0.0 == "Date" }
    headers.append(("Date", HTTPDate.format(unixSeconds: unixSeconds)))
  }
}

extension HTTPResponseStatus {
  /// 204 and 304, whose answers never have a body (RFC 9110 §6.4.1).
  var forbidsBody: Bool { code == 204 || code == 304 }
}

/// How a reply is delivered: as is, or broken on purpose (see `EmulatorFault.Mode`).
enum Delivery: Sendable {
  case normal
  case truncated
  case shortBody
  case stallAfterHeaders
  case corruptBody
}

/// What the connection handler does with one request.
enum Action: Sendable {
  case reply(Reply, Delivery)
  case drop
  case hang
}

/// An action, and how long to wait before it.
struct Decision: Sendable {
  var action: Action
  var delayMilliseconds = 0
}

extension HTTPResponseStatus {
  /// A status with Kodo's reason phrases for its own codes; a code outside 200...999 (only
  /// possible from a programmatic fault; 1xx answers are interim, not final) is sent as 500.
  static func kodo(_ code: Int) -> HTTPResponseStatus {
    switch code {
    case ..<200, 1_000...: .internalServerError
    case 573: HTTPResponseStatus(statusCode: 573, reasonPhrase: "Too Many Requests")
    case 579: HTTPResponseStatus(statusCode: 579, reasonPhrase: "Callback Failed")
    case 599: HTTPResponseStatus(statusCode: 599, reasonPhrase: "Server Error")
    case 612: HTTPResponseStatus(statusCode: 612, reasonPhrase: "No Such Entry")
    case 631: HTTPResponseStatus(statusCode: 631, reasonPhrase: "No Such Bucket")
    case 640: HTTPResponseStatus(statusCode: 640, reasonPhrase: "Invalid Marker")
    default: HTTPResponseStatus(statusCode: code)
    }
  }
}
