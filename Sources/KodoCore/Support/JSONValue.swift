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
    var parser = Parser(bytes: Array(text.utf8))
    parser.skipWhitespace()
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    guard parser.index == parser.bytes.count else {
      throw ParseError(offset: parser.index, reason: "unexpected text after the JSON value")
    }
    return value
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

  private static let hexDigits = Array("0123456789abcdef")

  static func writeString(_ text: String, to output: inout String) {
    output += "\""
    for unit in text.utf16 {
      switch unit {
      case 0x22: output += "\\\""
      case 0x5C: output += "\\\\"
      case 0x0A: output += "\\n"
      case 0x0D: output += "\\r"
      case 0x09: output += "\\t"
      case 0x08: output += "\\b"
      case 0x0C: output += "\\f"
      case 0x20..<0x7F: output.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
      default:
        output += "\\u"
        for shift in stride(from: 12, through: 0, by: -4) {
          output.append(hexDigits[Int(unit >> UInt16(shift) & 0xF)])
        }
      }
    }
    output += "\""
  }

  /// The members of an object, or `nil` for any other value.
  public var objectMembers: [Member]? {
    if case .object(let members) = self { return members }
    return nil
  }
}

private struct Parser {
  let bytes: [UInt8]
  var index = 0

  mutating func skipWhitespace() {
    while index < bytes.count,
      bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
    {
      index += 1
    }
  }

  func error(_ reason: String) -> JSONValue.ParseError {
    JSONValue.ParseError(offset: index, reason: reason)
  }

  mutating func parseValue(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
    guard depth < 512 else { throw error("JSON nested too deeply") }
    guard index < bytes.count else { throw error("unexpected end of JSON") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject(depth: depth)
    case UInt8(ascii: "["): return try parseArray(depth: depth)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try literal("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try literal("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try literal("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
    default: throw error("unexpected character")
    }
  }

  mutating func literal(_ word: String) throws(JSONValue.ParseError) {
    let expected = Array(word.utf8)
    guard index + expected.count <= bytes.count,
      bytes[index..<index + expected.count].elementsEqual(expected)
    else { throw error("invalid literal") }
    index += expected.count
  }

  mutating func parseObject(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
    index += 1
    var members: [JSONValue.Member] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw error("expected a member name")
      }
      let name = try parseString()
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
        throw error("expected ':'")
      }
      index += 1
      skipWhitespace()
      members.append(JSONValue.Member(name, try parseValue(depth: depth + 1)))
      skipWhitespace()
      guard index < bytes.count else { throw error("unexpected end of JSON") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
      index += 1
      return .object(members)
    }
  }

  mutating func parseArray(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
    index += 1
    var values: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(values)
    }
    while true {
      skipWhitespace()
      values.append(try parseValue(depth: depth + 1))
      skipWhitespace()
      guard index < bytes.count else { throw error("unexpected end of JSON") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
      index += 1
      return .array(values)
    }
  }

  mutating func parseNumber() throws(JSONValue.ParseError) -> String {
    let start = index
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    func digits(_ parser: inout Parser) -> Int {
      var count = 0
      while parser.index < parser.bytes.count, parser.bytes[parser.index] >= UInt8(ascii: "0"),
        parser.bytes[parser.index] <= UInt8(ascii: "9")
      {
        parser.index += 1
        count += 1
      }
      return count
    }
    guard index < bytes.count else { throw error("invalid number") }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else if digits(&self) == 0 {
      throw error("invalid number")
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard digits(&self) > 0 else { throw error("invalid number") }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      guard digits(&self) > 0 else { throw error("invalid number") }
    }
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  mutating func parseString() throws(JSONValue.ParseError) -> String {
    index += 1
    var units: [UInt8] = []
    while true {
      guard index < bytes.count else { throw error("unterminated string") }
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        index += 1
        guard let text = String(validating: units, as: UTF8.self) else {
          throw error("string is not valid UTF-8")
        }
        return text
      }
      if byte < 0x20 { throw error("control character in string") }
      if byte != UInt8(ascii: "\\") {
        units.append(byte)
        index += 1
        continue
      }
      index += 1
      guard index < bytes.count else { throw error("unterminated string") }
      let escape = bytes[index]
      index += 1
      switch escape {
      case UInt8(ascii: "\""): units.append(0x22)
      case UInt8(ascii: "\\"): units.append(0x5C)
      case UInt8(ascii: "/"): units.append(0x2F)
      case UInt8(ascii: "b"): units.append(0x08)
      case UInt8(ascii: "f"): units.append(0x0C)
      case UInt8(ascii: "n"): units.append(0x0A)
      case UInt8(ascii: "r"): units.append(0x0D)
      case UInt8(ascii: "t"): units.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
          guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
            bytes[index + 1] == UInt8(ascii: "u")
          else { throw error("unpaired surrogate") }
          index += 2
          let low = try hex4()
          guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
          throw error("unpaired surrogate")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid escape") }
        units.append(contentsOf: Array(String(Character(unicode)).utf8))
      default:
        throw error("invalid escape")
      }
    }
  }

  mutating func hex4() throws(JSONValue.ParseError) -> UInt32 {
    guard index + 4 <= bytes.count else { throw error("invalid \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
      default: throw error("invalid \\u escape")
      }
      value = value << 4 | digit
      index += 1
    }
    return value
  }
}
