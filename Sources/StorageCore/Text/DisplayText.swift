/// Making untrusted text (keys, server messages) safe to show on a terminal line.
public enum DisplayText {
  /// The text with control characters, DEL, and Unicode line/paragraph separators written as
  /// escapes (`\n`, `\t`, `\u{1B}`), so a key can never move the cursor or forge an output line.
  public static func escaped(_ text: some StringProtocol) -> String {
    var needsEscape = false
    for scalar in text.unicodeScalars where isUnsafe(scalar) {
      needsEscape = true
      break
    }
    if !needsEscape { return String(text) }
    var output = ""
    for scalar in text.unicodeScalars {
      if !isUnsafe(scalar) {
        output.unicodeScalars.append(scalar)
        continue
      }
      switch scalar {
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      default: output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      }
    }
    return output
  }

  /// The text escaped and in double quotes, for error messages.
  public static func quoted(_ text: some StringProtocol) -> String {
    "\"" + escaped(text).replacingBackslashQuote() + "\""
  }

  /// Whether a scalar must be escaped before reaching a terminal.
  public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    return value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) || value == 0x2028
      || value == 0x2029
  }
}

extension String {
  fileprivate func replacingBackslashQuote() -> String {
    guard contains("\"") else { return self }
    var output = ""
    for character in self {
      if character == "\"" { output += "\\\"" } else { output.append(character) }
    }
    return output
  }
}
