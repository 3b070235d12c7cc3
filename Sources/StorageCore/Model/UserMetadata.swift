/// An object's user metadata (Kodo `x-qn-meta`, OSS `x-oss-meta-*`, without the prefix):
/// name/value pairs ordered by the bytes of their names, names compared by their bytes.
///
/// A `[String: String]` merges two names that differ only by Unicode normalisation
/// (`caf\u{E9}` and `cafe\u{301}` are one `String` key), while the services keep both. Names are
/// kept as the service sent them (OSS lower-cases ASCII letters, and only those, itself).
public struct UserMetadata: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
  /// The entries, ordered by the bytes of their names; no two names have the same bytes.
  public private(set) var entries: [MetadataEntry] = []

  /// No metadata.
  public init() {}

  /// The entries of `pairs`; a name given twice (byte for byte) keeps its last value.
  public init(_ pairs: some Sequence<(String, String)>) {
    for (name, value) in pairs { self[name] = value }
  }

  /// The entries of a literal.
  public init(dictionaryLiteral elements: (String, String)...) {
    self.init(elements)
  }

  /// The number of entries.
  public var count: Int { entries.count }

  /// Whether there are none.
  public var isEmpty: Bool { entries.isEmpty }

  /// The value of the entry whose name has the bytes of `name`; setting `nil` removes it,
  /// setting a value replaces it or adds an entry in its place in the order.
  public subscript(name: String) -> String? {
    get {
      let index = position(of: name)
      return index < entries.count && ExactKey.same(entries[index].name, name)
        ? entries[index].value : nil
    }
    set {
      let index = position(of: name)
      let found = index < entries.count && ExactKey.same(entries[index].name, name)
      switch (found, newValue) {
      case (true, let value?): entries[index].value = value
      case (true, nil): entries.remove(at: index)
      case (false, let value?): entries.insert(MetadataEntry(name, value), at: index)
      case (false, nil): break
      }
    }
  }

  /// The entries as `(key, value)` pairs, in order.
  public func makeIterator() -> IndexingIterator<[(key: String, value: String)]> {
    entries.map { (key: $0.name, value: $0.value) }.makeIterator()
  }

  /// The index of the first entry whose name does not sort before `name` (by bytes).
  private func position(of name: String) -> Int {
    var low = 0
    var high = entries.count
    while low < high {
      let middle = (low + high) / 2
      if entries[middle].name.utf8.lexicographicallyPrecedes(name.utf8) {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low
  }
}
