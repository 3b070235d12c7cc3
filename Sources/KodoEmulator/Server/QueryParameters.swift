import KodoCore
import StorageCore

/// A raw query string's parameters, decoded form-style (`+` is a space, then `%XX`), in order.
struct QueryParameters {
  private(set) var pairs: [(name: String, value: String)] = []

  /// Decodes `raw` (without `?`).
  ///
  /// - Returns: `nil` when a name or value has bad percent-encoding or is not UTF-8.
  init?(_ raw: Substring) {
    for pair in WireText.split(raw, at: "&", omittingEmpty: true) {
      let (name, value) = WireText.cut(pair, at: "=") ?? (pair, pair[pair.endIndex...])
      guard let decodedName = Self.decode(name), let decodedValue = Self.decode(value) else {
        return nil
      }
      pairs.append((decodedName, decodedValue))
    }
  }

  /// The first value of `name`.
  func first(_ name: String) -> String? {
    pairs.first(where: { WireText.same($0.name, name) })?.value
  }

  private static func decode(_ text: Substring) -> String? {
    PercentEncoding.decode(WireText.split(text, at: "+").joined(separator: " "))
  }
}
