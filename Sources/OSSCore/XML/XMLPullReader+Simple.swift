import Foundation

/// A child element of the simplest form, `<Name>text</Name>`, read in one pass: what a listing
/// page is made of (a thousand `<Contents>` of six such children each).
package struct XMLSimpleElement {
  /// Where its start tag begins (to go back to, `XMLPullReader.unread`).
  let start: Int
  /// Its name in the document.
  let nameRange: Range<Int>
  /// Its text: the document's own bytes, nothing in them to decode; inside the quotes when
  /// `quoted`.
  let textRange: Range<Int>
  /// Whether the text was `&quot;…&quot;` (an ETag), `textRange` being what is inside.
  let quoted: Bool
}

extension XMLPullReader {
  /// Reads the next child of the element being read when it is a simple element: optional
  /// whitespace, `<Name>`, plain text (no `&`, `<`, CR or other control character; or, for an
  /// ETag, plain text inside `&quot;` entities), `</Name>`. `nil`, the reader unmoved, for
  /// anything else (an attribute, an empty-element tag, a comment, an entity, a child element,
  /// the parent's end tag, the depth limit); `nextChild` then reads it, and says what is wrong
  /// if something is.
  ///
  /// It accepts only what `nextChild` and `withText` read the same way (the same name, the
  /// same text, the reader at the same place after it), so a decoder may use either for any
  /// child: this one is the fast way through the common case.
  @inline(__always)
  package mutating func readSimpleElement() -> XMLSimpleElement? {
    guard !pending, open.count < Self.maximumDepth else { return nil }
    let end = input.count
    var at = position
    while at < end, Self.isSpace(input[at]) { at += 1 }
    let start = at
    guard at + 1 < end, input[at] == UInt8(ascii: "<") else { return nil }
    at += 1
    let nameStart = at
    while at < end, Self.isNameByte(input[at]) { at += 1 }
    guard at > nameStart, at < end, input[at] == UInt8(ascii: ">"),
      !Self.isDigitOrDashOrDot(input[nameStart])
    else { return nil }
    let name = nameStart..<at
    at += 1
    var textStart = at
    at = plainTextEnd(from: at)
    var textEnd = at
    var quoted = false
    if at == textStart, matches("&quot;", at: at) {
      at += 6
      textStart = at
      at = plainTextEnd(from: at)
      guard matches("&quot;", at: at) else { return nil }
      textEnd = at
      at += 6
      quoted = true
    }
    // `</Name>`, the name exactly as it opened, no space before `>`.
    let count = name.count
    guard at + 3 + count <= end, input[at] == UInt8(ascii: "<"),
      input[at + 1] == UInt8(ascii: "/"), input[at + 2 + count] == UInt8(ascii: ">"),
      let base = input.baseAddress,
      memcmp(base + at + 2, base + name.lowerBound, count) == 0
    else { return nil }
    position = at + 3 + count
    return XMLSimpleElement(
      start: start, nameRange: name, textRange: textStart..<textEnd, quoted: quoted)
  }

  /// Goes back to before `element`, for `nextChild` to read it the general way.
  package mutating func unread(_ element: XMLSimpleElement) {
    position = element.start
  }

  /// The name of `element`.
  @inline(__always)
  package func name(of element: XMLSimpleElement) -> XMLName {
    XMLName(UnsafeBufferPointer(rebasing: input[element.nameRange]))
  }

  /// The text of `element` turned into a value by `parse`, as `readValue` turns the text of
  /// the element it reads: when `parse` returns `nil`, the same failure, at the text, in
  /// `element` (which is no longer open).
  @inline(__always)
  package func value<T>(
    of element: XMLSimpleElement, _ parse: (UnsafeBufferPointer<UInt8>) -> T?,
    problem: (UnsafeBufferPointer<UInt8>) -> String
  ) throws(Failure) -> T {
    let bytes = UnsafeBufferPointer(rebasing: input[element.textRange])
    guard let value = parse(bytes) else {
      throw Failure(
        offset: element.textRange.lowerBound - (element.quoted ? 6 : 0),
        reason: problem(bytes),
        path: (open + [element.nameRange]).map(text).joined(separator: "/"))
    }
    return value
  }

  /// Whether the input at `at` starts with `literal`.
  @inline(__always)
  func matches(_ literal: StaticString, at: Int) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard at + count <= input.count, let base = input.baseAddress else { return false }
    return memcmp(base + at, literal.utf8Start, count) == 0
  }
}
