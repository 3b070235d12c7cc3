/// A JSON value that keeps object member order and numbers' original text.
///
/// Used where bytes matter: upload-token policies pass the user's extra fields through unchanged.
public indirect enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  /// A number, kept as the text it was written with.
  case number(String)
  case string(String)
  case array([JSONValue])
  /// An object's members, in order.
  case object([Member])

  /// One object member.
  public struct Member: Sendable, Equatable {
    /// The member's name.
    public var name: String
    /// The member's value.
    public var value: JSONValue

    /// A member from a name and a value.
    public init(_ name: String, _ value: JSONValue) {
      self.name = name
      self.value = value
    }
  }

  /// Parses JSON text (RFC 8259; one value, surrounding whitespace allowed).
  ///
  /// - Throws: `JSONValue.ParseError` saying where the text stops being JSON.
  public static func parse(_ text: String) throws(ParseError) -> JSONValue {
    var reader = JSONReader(Array(text.utf8))
    do {
      let value = try read(&reader)
      try reader.expectEnd()
      return value
    } catch {
      throw ParseError(offset: error.offset, reason: error.reason)
    }
  }

  package static func read(_ reader: inout JSONReader) throws(JSONReader.Failure) -> JSONValue {
    switch try reader.peekKind() {
    case .null:
      _ = reader.readNull()
      return .null
    case .bool: return .bool(try reader.readBool())
    case .number: return .number(try reader.readNumberText())
    case .string: return .string(try reader.readString())
    case .array:
      var values: [JSONValue] = []
      try reader.readArray { (reader) throws(JSONReader.Failure) in values.append(try read(&reader))
      }
      return .array(values)
    case .object:
      var members: [Member] = []
      try reader.readObject { (reader, name) throws(JSONReader.Failure) in
        members.append(Member(name, try read(&reader)))
      }
      return .object(members)
    }
  }

  /// Why text is not JSON, and where.
  public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset of the problem.
    public var offset: Int
    /// What is wrong there.
    public var reason: String
    /// `reason at byte N`.
    public var description: String { "\(reason) at byte \(offset)" }
  }

  /// Compact JSON, with non-ASCII characters escaped as `\uXXXX` the way Python's `json.dumps`
  /// writes them (what Qiniu's Python SDK signs).
  public var asciiCompactText: String {
    var output = ""
    write(to: &output)
    return output
  }

  private func write(to output: inout String) {
    switch self {
    case .null: output += "null"
    case .bool(let value): output += value ? "true" : "false"
    case .number(let text): output += text
    case .string(let text): JSONValue.writeString(text, to: &output)
    case .array(let values):
      output += "["
      for (index, value) in values.enumerated() {
        if index > 0 { output += "," }
        value.write(to: &output)
      }
      output += "]"
    case .object(let members):
      output += "{"
      for (index, member) in members.enumerated() {
        if index > 0 { output += "," }
        JSONValue.writeString(member.name, to: &output)
        output += ":"
        member.value.write(to: &output)
      }
      output += "}"
    }
  }

  package static func writeString(_ text: String, to output: inout String) {
    var bytes: [UInt8] = []
    JSONText.appendString(text, to: &bytes, asciiOnly: true)
    output += String(decoding: bytes, as: UTF8.self)
  }

  /// The members of an object, or `nil` for any other value.
  public var objectMembers: [Member]? {
    if case .object(let members) = self { return members }
    return nil
  }
}
