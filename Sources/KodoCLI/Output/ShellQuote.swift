import Foundation
import StorageCore

/// Quoting for commands we print for people to paste.
enum ShellQuote {
  static func quote(_ text: String) -> DisplayText {
    let safe = text.unicodeScalars.allSatisfy {
      ($0.properties.isAlphabetic || ("0"..."9").contains($0)
        || "-_./:@%+=,".unicodeScalars.contains($0))
        && !DisplayText.isUnsafe($0)
    }
    if safe && !text.isEmpty { return DisplayText(escaping: text) }
    return "'\(text.replacingOccurrences(of: "'", with: "'\\''"))'"
  }
}
