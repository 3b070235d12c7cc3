/// The body of Kodo's form upload (`POST /` on an up host, `docs/write-protocol.md` §A3):
/// `multipart/form-data` with the fields `token`, `key` (omitted when there is none), `crc32`,
/// custom variables and `x-qn-meta-` entries in order, and the file last, as Qiniu's Python SDK
/// writes it.
public enum KodoForm {
  /// `multipart/form-data; boundary=<boundary>`.
  public static func contentType(boundary: String) -> String {
    "multipart/form-data; boundary=" + boundary
  }

  /// The whole body.
  ///
  /// - Parameters:
  ///   - token: the upload token.
  ///   - key: the key, raw UTF-8; `nil` leaves the field out (the service names the object).
  ///   - crc32: the file's CRC-32, which the service checks (406 on a mismatch).
  ///   - fields: custom variables (`x:name`) and metadata (`x-qn-meta-name`), in order.
  ///   - fileName: the file part's `filename` (Kodo's `fname`).
  ///   - mimeType: the file part's `Content-Type`; `nil` sends none (the service detects it).
  ///   - data: the file's bytes.
  ///   - boundary: the boundary, which must not occur in any value or in `data`.
  /// - Returns: the body's bytes.
  public static func body(
    token: String, key: String?, crc32: UInt32?, fields: [(name: String, value: String)] = [],
    fileName: String, mimeType: String?, data: [UInt8], boundary: String
  ) -> [UInt8] {
    var body: [UInt8] = []
    body.reserveCapacity(data.count + 512 + token.utf8.count + (key?.utf8.count ?? 0))
    func field(_ name: String, _ value: String) {
      body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"".utf8)
      body += headerParameter(name)
      body += Array("\"\r\n\r\n".utf8)
      body += Array(value.utf8)
      body += Array("\r\n".utf8)
    }
    field("token", token)
    if let key { field("key", key) }
    if let crc32 { field("crc32", String(crc32)) }
    for item in fields { field(item.name, item.value) }
    body += Array(
      "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"".utf8)
    body += headerParameter(fileName)
    body += Array("\"\r\n".utf8)
    if let mimeType { body += Array("Content-Type: \(mimeType)\r\n".utf8) }
    body += Array("\r\n".utf8)
    body += data
    body += Array("\r\n--\(boundary)--\r\n".utf8)
    return body
  }

  /// A quoted header parameter's text as HTML5 (and urllib3) write it: `"` as `%22`, `\` doubled,
  /// control characters but ESC as `%XX`; so a name cannot end the quotes or the header line.
  static func headerParameter(_ text: String) -> [UInt8] {
    var output: [UInt8] = []
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): output += Array("%22".utf8)
      case UInt8(ascii: "\\"): output += [byte, byte]
      case 0x00...0x1F where byte != 0x1B:
        let digits = Array("0123456789ABCDEF".utf8)
        output += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
      default: output.append(byte)
      }
    }
    return output
  }
}
