/// A key (or prefix) compared and hashed by its bytes.
///
/// `String`'s `==`, `<` and hashing follow Unicode canonical equivalence: `"caf\u{E9}"` (as typed on
/// Linux) and `"cafe\u{301}"` (as a Mac writes file names) are equal `String`s, yet they are two
/// objects in a bucket. Wherever kodo keeps or finds keys by identity (sets of seen folders, a
/// cache by location, the row a cursor is anchored to, the entry a marker resumes after), it
/// goes through this type, so one of two such keys never stands for the other.
public struct ExactKey: Hashable, Sendable, CustomStringConvertible {
  /// The key.
  public let text: String

  /// The key `text`, compared by its UTF-8 bytes.
  public init(_ text: some StringProtocol) { self.text = String(text) }

  public static func == (lhs: ExactKey, rhs: ExactKey) -> Bool {
    lhs.text.utf8.elementsEqual(rhs.text.utf8)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(text.utf8.count)
    for byte in text.utf8 { hasher.combine(byte) }
  }

  public var description: String { text }

  /// Whether `a` and `b` are the same bytes.
  public static func same(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
    a.utf8.elementsEqual(b.utf8)
  }
}
