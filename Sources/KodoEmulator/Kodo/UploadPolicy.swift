import KodoCore
import StorageCore

/// A Kodo upload token's put policy, checked: `AK:SIGN:ENCODED`, the signature over ENCODED as
/// received, the policy's JSON read by field name (any key order or escaping).
struct UploadPolicy {
  /// Why a token is refused.
  enum Refusal: Error {
    /// Malformed, another access key, or a wrong signature (401 `bad token`).
    case bad
    /// Past its deadline (401 `token out of date`).
    case expired
  }

  var bucket: String
  /// The scope's key part; `nil` for a whole-bucket scope.
  var scopeKey: String?
  var isPrefixalScope = false
  var deadline: Int64
  var insertOnly = false
  var fsizeLimit: Int64?
  var fsizeMin: Int64?
  var mimeLimit: String?
  var returnBody: String?
  var fileType: Int?
  /// Resumable v1: a whole-bucket scope without `insertOnly` overwrites.
  var overwritesWholeBucket = false

  /// Decodes and checks `token` against `credentials` at `now`.
  init(token: String, credentials: Credentials, now: Int64) throws(Refusal) {
    let fields = token.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
    guard fields.count == 3 else { throw .bad }
    let encoded = String(decoding: fields[2], as: UTF8.self)
    let expected = credentials.sign(encoded)
    let given =
      String(decoding: fields[0], as: UTF8.self) + ":"
      + String(decoding: fields[1], as: UTF8.self)
    guard EmulatorService.constantTimeEquals(expected, given),
      let bytes = URLSafeBase64.decode(encoded),
      let text = String(validating: bytes, as: UTF8.self),
      case .object(let members)? = try? JSONValue.parse(text)
    else { throw .bad }
    var values = [String: JSONValue]()
    for member in members { values[member.name] = member.value }
    func number(_ name: String) -> Int64? {
      if case .number(let text)? = values[name] { return Int64(text) }
      return nil
    }
    func string(_ name: String) -> String? {
      if case .string(let text)? = values[name] { return text }
      return nil
    }
    guard let scope = string("scope"), let deadline = number("deadline") else { throw .bad }
    if let colon = scope.utf8.firstIndex(of: UInt8(ascii: ":")) {
      bucket = String(scope[..<colon])
      scopeKey = String(scope[scope.utf8.index(after: colon)...])
    } else {
      bucket = scope
    }
    self.deadline = deadline
    isPrefixalScope = (number("isPrefixalScope") ?? 0) != 0
    insertOnly = (number("insertOnly") ?? 0) != 0
    fsizeLimit = number("fsizeLimit")
    fsizeMin = number("fsizeMin")
    mimeLimit = string("mimeLimit")
    returnBody = string("returnBody")
    fileType = number("fileType").map { Int($0) }
    guard deadline >= now else { throw .expired }
  }

  /// The key an upload stores under: the one asked for, or with none the scope's key (a
  /// whole-bucket or prefixal scope then names the object by its hash, as Kodo does without a
  /// `saveKey`); `nil` when the scope does not allow the key.
  func key(asked: String?, hash: String) -> String? {
    guard let scopeKey else { return asked ?? hash }
    if isPrefixalScope {
      let key = asked ?? hash
      return key.utf8.starts(with: scopeKey.utf8) ? key : nil
    }
    guard let asked else { return scopeKey }
    return asked == scopeKey ? asked : nil
  }

  /// Whether the upload may replace an existing object with other content: only a `bucket:key`
  /// scope without `insertOnly`.
  var mayOverwrite: Bool {
    overwritesWholeBucket || (scopeKey != nil && !isPrefixalScope && !insertOnly)
  }

  /// Whether `mimeType` passes `mimeLimit` (`image/*;text/plain`, or a deny list after `!`).
  func allows(mimeType: String) -> Bool {
    guard let mimeLimit, !mimeLimit.isEmpty else { return true }
    let denied = WireText.dropping(prefix: "!", from: mimeLimit)
    let matched = WireText.split(denied ?? mimeLimit[...], at: ";").contains { pattern in
      let pattern = pattern.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
      if pattern.last == UInt8(ascii: "*"), pattern.dropLast().last == UInt8(ascii: "/") {
        return mimeType.utf8.starts(with: pattern.dropLast())
      }
      return mimeType.utf8.elementsEqual(pattern)
    }
    let deny = denied != nil
    return matched != deny
  }

  /// The answer's body: `returnBody` with its variables filled in, or `{"hash":…,"key":…}`.
  func answer(
    key: String, hash: String, fsize: Int64, mimeType: String, fileName: String?,
    variables: [(String, String)]
  ) -> [UInt8] {
    guard let template = returnBody else {
      var body = Array("{\"hash\":".utf8)
      JSONText.appendString(hash, to: &body)
      body += Array(",\"key\":".utf8)
      JSONText.appendString(key, to: &body)
      body.append(UInt8(ascii: "}"))
      return body
    }
    let name = fileName ?? ""
    let ext = name.utf8.lastIndex(of: UInt8(ascii: ".")).map { String(name[$0...]) } ?? ""
    // By the names' bytes: `x:caf\u{E9}` and `x:cafe\u{301}` are two variables.
    var values: [ExactKey: String] = [:]
    for (name, value) in [
      ("key", key), ("etag", hash), ("hash", hash), ("fsize", String(fsize)),
      ("mimeType", mimeType), ("bucket", bucket), ("fname", name), ("ext", ext),
    ] + variables {
      values[ExactKey(name)] = value
    }
    var output = [UInt8]()
    var rest = Substring(template)
    while let start = WireText.range(of: "$(", in: rest) {
      output += Array(rest[..<start.lowerBound].utf8)
      guard let end = WireText.firstIndex(of: ")", in: rest[start.upperBound...]) else {
        rest = rest[start.lowerBound...]
        break
      }
      if let value = values[ExactKey(rest[start.upperBound..<end])] {
        // Inside the template's own quotes: escaped as a JSON string's content.
        var quoted = [UInt8]()
        JSONText.appendString(value, to: &quoted)
        output += quoted.dropFirst().dropLast()
      }
      rest = rest[rest.utf8.index(after: end)...]
    }
    output += Array(rest.utf8)
    return output
  }
}
