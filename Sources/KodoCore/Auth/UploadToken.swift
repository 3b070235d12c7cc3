public import StorageCore

/// Upload tokens: `AK:sign:urlsafe_base64(putPolicy)`, the policy JSON signed as written.
public enum UploadToken {
  /// The put-policy JSON Qiniu's Python SDK writes: `scope`, then `deadline`, then `extra`'s
  /// members in their order, compact, non-ASCII escaped.
  ///
  /// - Throws: `StorageError` (`invalidInput`) when `extra` is not an object, or sets `scope` or
  ///   `deadline`, which come from the arguments (with the hint `fieldFromArguments`).
  public static func policyJSON(scope: String, deadline: Int64, extra: JSONValue? = nil)
    throws(StorageError) -> String
  {
    var members = [
      JSONValue.Member("scope", .string(scope)),
      JSONValue.Member("deadline", .number(String(deadline))),
    ]
    if let extra {
      guard let extraMembers = extra.objectMembers else {
        throw StorageError(.invalidInput, "the put policy must be a JSON object")
      }
      for member in extraMembers {
        if member.name == "scope" || member.name == "deadline" {
          throw StorageError(
            .invalidInput, "the put policy sets \"\(member.name)\"",
            hint: .fieldFromArguments(member.name))
        }
        members.append(member)
      }
    }
    return JSONValue.object(members).asciiCompactText
  }

  /// Signs a put policy given as JSON text.
  public static func token(policyJSON: String, credentials: Credentials) -> String {
    credentials.signWithData(Array(policyJSON.utf8))
  }

  /// An upload token's parts: the access key, the put policy (parsed) and the bucket of its
  /// scope (the text before the scope's first `:`).
  public struct Decoded: Sendable, Equatable {
    /// The access key.
    public var accessKey: String
    /// The put policy.
    public var policy: JSONValue
    /// The scope's bucket.
    public var bucket: String
  }

  /// Splits `AK:sign:policy` and decodes the policy (URL-safe base64, padded or not).
  ///
  /// - Returns: `nil` when the token has not three fields, or its policy is not base64 of a
  ///   JSON object with a string `scope`.
  public static func decode(_ token: String) -> Decoded? {
    let fields = token.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
    guard fields.count == 3,
      let policyBytes = URLSafeBase64.decode(String(decoding: fields[2], as: UTF8.self)),
      let text = String(validating: policyBytes, as: UTF8.self),
      let policy = try? JSONValue.parse(text),
      let members = policy.objectMembers,
      case .string(let scope)? = members.first(where: { $0.name == "scope" })?.value
    else { return nil }
    let bucket =
      scope.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
      .first.map { String(decoding: $0, as: UTF8.self) } ?? scope
    return Decoded(
      accessKey: String(decoding: fields[0], as: UTF8.self), policy: policy, bucket: bucket)
  }
}
