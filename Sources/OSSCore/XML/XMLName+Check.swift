/// Whether a name may be written as an element: the check the writers of OSS's answers (the
/// emulator's) make before writing a field's name, by this reader's own rule.
extension XMLPullReader {
  /// Whether `text` is an XML name this reader accepts.
  package static func isName(_ text: String) -> Bool {
    guard let first = text.utf8.first, !isDigitOrDashOrDot(first) else { return false }
    return text.utf8.allSatisfy(isNameByte)
  }
}
