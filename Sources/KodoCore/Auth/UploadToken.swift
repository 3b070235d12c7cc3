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
}
