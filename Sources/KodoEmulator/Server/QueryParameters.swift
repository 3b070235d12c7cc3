import KodoCore
import StorageCore

/// A raw query string's parameters, decoded form-style (`+` is a space, then `%XX`), in order.
struct QueryParameters {
  private(set) var pairs: [(name: String, value: String)] = []

  /// Decodes `raw` (without `?`).
  ///
  /// - Returns: `nil` when a name or value has bad percent-encoding or is not UTF-8.
  init?(_ raw: Substring) {
    for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
      let name: Substring
      let value: Substring
      if let equals = pair.firstIndex(of: "=") {
        name = pair[..<equals]
        value = pair[pair.index(after: equals)...]
      } else {
        name = pair
        value = ""
      }
      guard let decodedName = Self.decode(name), let decodedValue = Self.decode(value) else {
        return nil
      }
      pairs.append((decodedName, decodedValue))
    }
  }

  /// The first value of `name`.
  func first(_ name: String) -> String? {
    pairs.first(where: { $0.name == name })?.value
  }

  private static func decode(_ text: Substring) -> String? {
    PercentEncoding.decode(String(text.map { $0 == "+" ? " " : $0 }))
  }
}
