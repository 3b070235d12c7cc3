/// A pull parser over JSON bytes: the decoders of Kodo's answers walk it field by field.
///
/// It allocates only for the strings it returns, skips what a decoder does not ask for, and
/// reports the byte offset of anything that is not JSON. Strict RFC 8259; nesting is capped.
package struct JSONReader {
  package let bytes: [UInt8]
  package internal(set) var index: Int = 0
  private var depth = 0

  package init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  package struct Failure: Error, Equatable {
    package var offset: Int
    package var reason: String

    package init(offset: Int, reason: String) {
      self.offset = offset
      self.reason = reason
    }
  }

  package enum Kind: Equatable {
    case object, array, string, number, bool, null
  }

  package func fail(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

  @inline(__always)
  package mutating func skipWhitespace() {
    // Compact JSON has none: one test then.
    if index < bytes.count, bytes[index] > 0x20 { return }
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x0A, 0x0D, 0x09: index += 1
      default: return
      }
    }
  }

  /// The kind of the next value, without consuming it.
  package mutating func peekKind() throws(Failure) -> Kind {
    skipWhitespace()
    guard index < bytes.count else { throw fail("unexpected end of JSON") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return .object
    case UInt8(ascii: "["): return .array
    case UInt8(ascii: "\""): return .string
    case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
    case UInt8(ascii: "n"): return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
    default: throw fail("unexpected character")
    }
  }

  /// Requires the end of input after optional whitespace.
  package mutating func expectEnd() throws(Failure) {
    skipWhitespace()
    guard index == bytes.count else { throw fail("unexpected text after the JSON value") }
  }

  /// Iterates an object's members: `body` is called with each name and must consume the value.
  @inline(__always)
  package mutating func readObject(_ body: (inout JSONReader, String) throws(Failure) -> Void)
    throws(Failure)
  {
    try readContainer(open: "{", close: "}", what: "an object") { (reader) throws(Failure) in
      reader.skipWhitespace()
      guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "\"")
      else {
        throw reader.fail("expected a member name")
      }
      let name = try reader.readString()
      reader.skipWhitespace()
      guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: ":")
      else {
        throw reader.fail("expected ':'")
      }
      reader.index += 1
      let before = reader.index
      try body(&reader, name)
      if reader.index == before { try reader.skipValue() }
    }
  }

  /// Iterates an object's members as `readObject` does, with each name as a `MemberName`: the
  /// decoders that read many objects (a list page's items) match names against literals without
  /// making a `String` of each.
  @inline(__always)
  package mutating func readMembers(_ body: (inout JSONReader, MemberName) throws(Failure) -> Void)
    throws(Failure)
  {
    try readContainer(open: "{", close: "}", what: "an object") { (reader) throws(Failure) in
      reader.skipWhitespace()
      guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "\"")
      else {
        throw reader.fail("expected a member name")
      }
      let name = try reader.readMemberName()
      reader.skipWhitespace()
      guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: ":")
      else {
        throw reader.fail("expected ':'")
      }
      reader.index += 1
      let before = reader.index
      try body(&reader, name)
      if reader.index == before { try reader.skipValue() }
    }
  }

  /// Iterates an array's elements: `body` must consume each element.
  @inline(__always)
  package mutating func readArray(_ body: (inout JSONReader) throws(Failure) -> Void)
    throws(Failure)
  {
    try readContainer(open: "[", close: "]", what: "an array") { (reader) throws(Failure) in
      let before = reader.index
      try body(&reader)
      if reader.index == before { try reader.skipValue() }
    }
  }

  /// The loop both containers share: `open`, elements separated by commas, `close`.
  @inline(__always)
  mutating func readContainer(
    open: Unicode.Scalar, close: Unicode.Scalar, what: String,
    _ element: (inout JSONReader) throws(Failure) -> Void
  ) throws(Failure) {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: open) else {
      throw fail("expected \(what)")
    }
    try enter()
    index += 1
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: close) {
      index += 1
      depth -= 1
      return
    }
    while true {
      try element(&self)
      skipWhitespace()
      guard index < bytes.count else { throw fail("unexpected end of JSON") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard bytes[index] == UInt8(ascii: close) else { throw fail("expected ',' or '\(close)'") }
      index += 1
      depth -= 1
      return
    }
  }

  private mutating func enter() throws(Failure) {
    depth += 1
    if depth > 256 { throw fail("JSON nested too deeply") }
  }

  /// Reads a string value.
  package mutating func readString() throws(Failure) -> String {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
      throw fail("expected a string")
    }
    index += 1
    let start = index
    // Fast path: no escapes. Plain ASCII eight bytes at a time, then byte by byte.
    index = plainASCIIEnd(from: start)
    var orOfBytes: UInt8 = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let end = index
        index += 1
        let text = bytes.withUnsafeBufferPointer {
          String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self)
        }
        // Decoding repairs bad UTF-8 with U+FFFD, so valid input is exactly what comes back.
        guard orOfBytes < 0x80 || text.utf8.elementsEqual(bytes[start..<end]) else {
          throw Failure(offset: start, reason: "string is not valid UTF-8")
        }
        return text
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { throw fail("control character in string") }
      orOfBytes |= byte
      index += 1
    }
    var units = Array(bytes[start..<index])
    while true {
      guard index < bytes.count else { throw fail("unterminated string") }
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        index += 1
        let text = String(decoding: units, as: UTF8.self)
        guard text.utf8.elementsEqual(units) else {
          throw Failure(offset: start, reason: "string is not valid UTF-8")
        }
        return text
      }
      if byte < 0x20 { throw fail("control character in string") }
      if byte != UInt8(ascii: "\\") {
        units.append(byte)
        index += 1
        continue
      }
      index += 1
      guard index < bytes.count else { throw fail("unterminated string") }
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
          else { throw fail("unpaired surrogate") }
          index += 2
          let low = try hex4()
          guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
          throw fail("unpaired surrogate")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid escape") }
        var buffer: [UInt8] = []
        UTF8.encode(unicode) { buffer.append($0) }
        units.append(contentsOf: buffer)
      default:
        throw fail("invalid escape")
      }
    }
  }

  private mutating func hex4() throws(Failure) -> UInt32 {
    guard index + 4 <= bytes.count else { throw fail("invalid \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
      default: throw fail("invalid \\u escape")
      }
      value = value << 4 | digit
      index += 1
    }
    return value
  }

  /// Reads a number's text exactly as written.
  package mutating func readNumberText() throws(Failure) -> String {
    skipWhitespace()
    let start = index
    try skipNumber()
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  /// Passes over a number, checked as `readNumberText` checks it.
  mutating func skipNumber() throws(Failure) {
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard index < bytes.count else { throw fail("invalid number") }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else if countDigits() == 0 {
      throw fail("invalid number")
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard countDigits() > 0 else { throw fail("invalid number") }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      guard countDigits() > 0 else { throw fail("invalid number") }
    }
  }

  private mutating func countDigits() -> Int {
    var count = 0
    while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9")
    {
      index += 1
      count += 1
    }
    return count
  }

  /// Reads an integer that fits in 64 bits (`12`, `-3`, and integral forms like `1.0` or `1e3`).
  ///
  /// Every form is read exactly: `9007199254740993.0` is 9007199254740993, while `1e-400`,
  /// `0.5e0` and `-9223372036854775809` are not 64-bit integers.
  package mutating func readInt64() throws(Failure) -> Int64 {
    skipWhitespace()
    let start = index
    // Fast path: plain digits.
    var negative = false
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
      negative = true
      index += 1
    }
    // Eight digits at a time while the value cannot overflow (below 10^18), then one by one.
    var (value, digits) = eightDigitRuns()
    var overflow = false
    while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9")
    {
      let (times10, o1) = value.multipliedReportingOverflow(by: 10)
      let (sum, o2) = times10.addingReportingOverflow(Int64(bytes[index] - UInt8(ascii: "0")))
      overflow = overflow || o1 || o2
      value = sum
      index += 1
      digits += 1
    }
    let next = index < bytes.count ? bytes[index] : 0
    if digits > 0, !overflow, next != UInt8(ascii: "."), next != UInt8(ascii: "e"),
      next != UInt8(ascii: "E")
    {
      if digits > 1 && bytes[negative ? start + 1 : start] == UInt8(ascii: "0") {
        index = start
        throw fail("invalid number")
      }
      return negative ? -value : value
    }
    index = start
    let text = try readNumberText()
    guard let integer = Self.exactInteger(bytes[start..<index]) else {
      throw Failure(offset: start, reason: "expected an integer, found \(text)")
    }
    return integer
  }

  /// The 64-bit integer that the text of a valid JSON number denotes exactly, or `nil` when the
  /// number has a fractional part or does not fit.
  package static func exactInteger(_ text: ArraySlice<UInt8>) -> Int64? {
    var index = text.startIndex
    func isDigit(_ index: Int) -> Bool {
      index < text.endIndex && text[index] >= UInt8(ascii: "0") && text[index] <= UInt8(ascii: "9")
    }
    let negative = index < text.endIndex && text[index] == UInt8(ascii: "-")
    if negative { index += 1 }
    // The significant digits of the integer and fraction parts, without leading zeros.
    var significand: [UInt8] = []
    var fractionDigits = 0
    var inFraction = false
    while index < text.endIndex {
      if isDigit(index) {
        if !significand.isEmpty || text[index] != UInt8(ascii: "0") {
          significand.append(text[index] - UInt8(ascii: "0"))
        }
        if inFraction { fractionDigits += 1 }
      } else if text[index] == UInt8(ascii: "."), !inFraction {
        inFraction = true
      } else {
        break
      }
      index += 1
    }
    if significand.isEmpty { return 0 }
    // Leading zeros of the fraction were dropped, but still count as fraction digits.
    var exponent = 0
    if index < text.endIndex, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
      index += 1
      var exponentNegative = false
      if index < text.endIndex, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-")
      {
        exponentNegative = text[index] == UInt8(ascii: "-")
        index += 1
      }
      // Past a billion the answer is the same: zero digits to spare, or far too many.
      while isDigit(index) {
        exponent = min(exponent * 10 + Int(text[index] - UInt8(ascii: "0")), 1_000_000_000)
        index += 1
      }
      if exponentNegative { exponent = -exponent }
    }
    let scale = exponent - fractionDigits
    if scale < 0 {
      // The last -scale significant digits are a fraction: they must all be zero.
      guard -scale < significand.count, significand.suffix(-scale).allSatisfy({ $0 == 0 }) else {
        return nil
      }
      significand.removeLast(-scale)
    } else {
      guard significand.count + scale <= 19 else { return nil }
      significand += repeatElement(0, count: scale)
    }
    guard significand.count <= 19 else { return nil }
    var magnitude: UInt64 = 0
    for digit in significand { magnitude = magnitude * 10 + UInt64(digit) }
    if negative {
      guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
      return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
    }
    guard magnitude <= UInt64(Int64.max) else { return nil }
    return Int64(magnitude)
  }

  /// Reads `true` or `false`.
  package mutating func readBool() throws(Failure) -> Bool {
    skipWhitespace()
    if matchLiteral("true") { return true }
    if matchLiteral("false") { return false }
    throw fail("expected true or false")
  }

  /// Consumes `null` when it is next; returns whether it was.
  package mutating func readNull() -> Bool {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: "n") else { return false }
    return matchLiteral("null")
  }

  private mutating func matchLiteral(_ word: StaticString) -> Bool {
    let count = word.utf8CodeUnitCount
    guard index + count <= bytes.count else { return false }
    let matches = word.withUTF8Buffer { buffer in
      bytes[index..<index + count].elementsEqual(buffer)
    }
    if matches { index += count }
    return matches
  }

  /// Skips any value, checked as reading it would check it, making no string of it.
  package mutating func skipValue() throws(Failure) {
    switch try peekKind() {
    case .object: try readMembers { (reader, _) throws(Failure) in try reader.skipValue() }
    case .array: try readArray { (reader) throws(Failure) in try reader.skipValue() }
    case .string: try skipString()
    case .number: try skipNumber()
    case .bool: _ = try readBool()
    case .null: _ = readNull()
    }
  }

  /// Reads a string, or `nil` for `null`.
  package mutating func readOptionalString() throws(Failure) -> String? {
    if readNull() { return nil }
    return try readString()
  }

  /// Reads an integer, or `nil` for `null`.
  package mutating func readOptionalInt64() throws(Failure) -> Int64? {
    if readNull() { return nil }
    return try readInt64()
  }

  /// Reads an array of strings (`null` reads as empty).
  package mutating func readStringArray() throws(Failure) -> [String] {
    if readNull() { return [] }
    var values: [String] = []
    try readArray { (reader) throws(Failure) in values.append(try reader.readString()) }
    return values
  }

  /// Reads an object of string values as user metadata (`null` reads as empty), names kept byte
  /// for byte; other value kinds become their JSON text.
  package mutating func readMetadata() throws(Failure) -> UserMetadata {
    if readNull() { return [:] }
    var values = UserMetadata()
    try readObject { (reader, name) throws(Failure) in
      if try reader.peekKind() == .string {
        values[name] = try reader.readString()
      } else {
        let start = reader.index
        try reader.skipValue()
        values[name] = String(decoding: reader.bytes[start..<reader.index], as: UTF8.self)
      }
    }
    return values
  }
}
