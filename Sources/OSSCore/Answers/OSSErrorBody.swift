import Foundation
public import StorageCore

/// OSS's `<Error>` answer: the code, the message, the request id, the EC (the error's entry in
/// OSS's troubleshooting pages) and every other field the code brings (`BucketName`, `Key`,
/// `ServerTime`, `RequestTime`, `MaxAllowedSkewMilliseconds`, `StringToSign`…).
///
/// `fields` may hold `StringToSign`, which can contain a security token, and
/// `SignatureProvided`: they are for checks and tests, and never for messages.
public struct OSSErrorBody: Sendable, Equatable {
  /// `NoSuchKey`, `AccessDenied`…
  public var code: String
  /// The human text.
  public var message: String?
  /// `RequestId`.
  public var requestID: String?
  /// `HostId`.
  public var hostID: String?
  /// `EC` (`0026-00000001`).
  public var ec: String?
  /// Every other text element, by name.
  public var fields: [String: String]

  /// An error body from its parts.
  public init(
    code: String, message: String? = nil, requestID: String? = nil, hostID: String? = nil,
    ec: String? = nil, fields: [String: String] = [:]
  ) {
    self.code = code
    self.message = message
    self.requestID = requestID
    self.hostID = hostID
    self.ec = ec
    self.fields = fields
  }

  /// OSS's time when it refused a request as too skewed (`ServerTime`), when sent.
  public var serverTime: Timestamp? { fields["ServerTime"].flatMap(OSSTime.parseISO8601) }
}

extension OSSAnswers {
  /// Decodes an `<Error>` body.
  ///
  /// - Throws: `StorageError(.protocolError)` when it is not one (or has no `<Code>`).
  public static func errorBody(_ bytes: [UInt8], requestID: String? = nil) throws(StorageError)
    -> OSSErrorBody
  {
    try answer("error", bytes, requestID: requestID) { (reader, root) throws(Failure) in
      guard root == "Error" else { throw reader.unexpectedRoot(root, "Error") }
      var body = OSSErrorBody(code: "")
      var seen = Seen()
      try reader.readChildren { (reader, name) throws(Failure) in
        switch name {
        case "Code":
          body.code = try reader.readString()
          if !body.code.isEmpty { seen.insert(.code) }
        case "Message": body.message = try reader.readString()
        case "RequestId": body.requestID = try reader.readString()
        case "HostId": body.hostID = try reader.readString()
        case "EC": body.ec = try reader.readString()
        default:
          let field = name.string
          if let text = try reader.readStringIfText(), body.fields.count < 64 {
            body.fields[field] = text
          }
        }
      }
      try seen.require([.code], in: "Error", reader)
      return body
    }
  }

  /// Decodes the `x-oss-err` header of a bodiless (HEAD) error answer: an `<Error>` document in
  /// base64.
  ///
  /// - Throws: `StorageError(.protocolError)` when it is not base64 of an `<Error>` document.
  public static func errorHeader(_ value: String, requestID: String? = nil) throws(StorageError)
    -> OSSErrorBody
  {
    guard let data = Data(base64Encoded: String(WireText.trimmingSpaces(value))) else {
      throw StorageError(
        .protocolError, "cannot read OSS's x-oss-err header: it is not base64",
        requestID: requestID)
    }
    return try errorBody(Array(data), requestID: requestID)
  }
}

extension XMLPullReader {
  /// The text content of the element just returned, or `nil` (and the element skipped) when
  /// it holds elements or text that cannot be read.
  mutating func readStringIfText() throws(Failure) -> String? {
    let saved = self
    do {
      return try readString()
    } catch {
      self = saved
      try skipElement()
      return nil
    }
  }
}
