/// A `multipart/form-data` body (RFC 7578), cut at bytes: the parts of a Kodo form upload.
struct FormData {
  struct Part {
    var name: String
    var fileName: String?
    var contentType: String?
    var body: ArraySlice<UInt8>
  }

  var parts: [Part] = []

  /// The first part named `name`.
  func part(_ name: String) -> Part? { parts.first { $0.name == name } }

  /// The first text field named `name`, as UTF-8.
  func field(_ name: String) -> String? {
    part(name).flatMap { String(validating: $0.body, as: UTF8.self) }
  }

  /// The boundary of a `multipart/form-data; boundary=…` content type.
  static func boundary(contentType: String?) -> String? {
    guard let contentType,
      contentType.lowercased().hasPrefix("multipart/form-data")
    else { return nil }
    for parameter in contentType.split(separator: ";").dropFirst() {
      let pair = parameter.drop { $0 == " " }
      guard pair.lowercased().hasPrefix("boundary=") else { continue }
      var value = pair.dropFirst(9)
      if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
        value = value.dropFirst().dropLast()
      }
      return value.isEmpty ? nil : String(value)
    }
    return nil
  }

  /// Parses `body`; `nil` when it is not a well-formed form with this boundary.
  init?(_ body: [UInt8], boundary: String) {
    let delimiter = Array(("--" + boundary).utf8)
    guard var position = Self.find(delimiter, in: body, from: 0) else { return nil }
    position += delimiter.count
    while true {
      // After a delimiter: `--` ends the form, CRLF starts a part.
      if body[position...].starts(with: [0x2D, 0x2D]) { return }
      guard body[position...].starts(with: [0x0D, 0x0A]) else { return nil }
      position += 2
      guard let headEnd = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: body, from: position) else {
        return nil
      }
      guard let head = String(validating: body[position..<headEnd], as: UTF8.self) else {
        return nil
      }
      let contentStart = headEnd + 4
      guard let next = Self.find([0x0D, 0x0A] + delimiter, in: body, from: contentStart) else {
        return nil
      }
      var part = Part(name: "", body: body[contentStart..<next])
      for line in head.split(separator: "\r\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].drop { $0 == " " }
        if name == "content-type" {
          part.contentType = String(value)
        } else if name == "content-disposition" {
          part.name = Self.parameter("name", in: value) ?? ""
          part.fileName = Self.parameter("filename", in: value)
        }
      }
      parts.append(part)
      position = next + 2 + delimiter.count
    }
  }

  /// A `name="value"` parameter of a header value (quotes removed, `\"` unescaped).
  private static func parameter(_ name: String, in value: Substring) -> String? {
    var rest = value[...]
    while let semicolon = rest.firstIndex(of: ";") {
      rest = rest[rest.index(after: semicolon)...].drop { $0 == " " }
      guard rest.hasPrefix(name + "=") else { continue }
      var text = rest.dropFirst(name.count + 1)
      if text.hasPrefix("\"") {
        text = text.dropFirst()
        var result = ""
        var escaped = false
        for character in text {
          if escaped {
            result.append(character)
            escaped = false
          } else if character == "\\" {
            escaped = true
          } else if character == "\"" {
            return result
          } else {
            result.append(character)
          }
        }
        return nil
      }
      return String(text.prefix { $0 != ";" })
    }
    return nil
  }

  /// The first index at or after `start` where `needle` occurs in `haystack`.
  private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard let first = needle.first, needle.count <= haystack.count else { return nil }
    var index = start
    let last = haystack.count - needle.count
    while index <= last {
      if haystack[index] == first && haystack[index..<index + needle.count].elementsEqual(needle) {
        return index
      }
      index += 1
    }
    return nil
  }
}
