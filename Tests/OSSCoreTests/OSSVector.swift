import Foundation
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// One vector from `oss-vectors.json`, named by its id in test output.
struct OSSVector: Sendable, CustomTestStringConvertible {
  let id: String
  let kind: String
  let sdk: String
  let conformance: String
  let json: JSONValue

  var testDescription: String { id }
  var inputs: JSONValue { json["inputs"] ?? .null }
  var expected: JSONValue { json["expected"] ?? .null }
  /// The second SDK's recomputation (`recomputed_by_*`), which adds the intermediate strings.
  var recomputed: JSONValue? {
    json.objectMembers?.first(where: { $0.name.hasPrefix("recomputed_by") })?.value
  }
  var isRequired: Bool { conformance.hasPrefix("required") }

  static let all: [OSSVector] = {
    guard let text = try? Fixtures.text("oss-vectors.json"),
      let root = try? JSONValue.parse(text),
      let vectors = root["vectors"]?.arrayValue
    else { return [] }
    return vectors.compactMap { value in
      guard let id = value["id"]?.stringValue, let kind = value["kind"]?.stringValue,
        let sdk = value["sdk"]?.stringValue, let conformance = value["conformance"]?.stringValue
      else { return nil }
      return OSSVector(id: id, kind: kind, sdk: sdk, conformance: conformance, json: value)
    }
  }()

  static func required(_ kinds: String...) -> [OSSVector] {
    all.filter { $0.isRequired && kinds.contains($0.kind) }
  }

  static var informative: [OSSVector] { all.filter { !$0.isRequired } }
}

extension JSONValue {
  /// A scalar as the text an SDK would send: strings as they are, numbers as written, booleans
  /// as `true`/`false`.
  var scalarText: String? {
    switch self {
    case .string(let text): text
    case .number(let text): text
    case .bool(let value): value ? "true" : "false"
    default: nil
    }
  }

  /// An object's members as ordered (name, text) pairs.
  var pairs: [(String, String)] {
    objectMembers?.map { ($0.name, $0.value.scalarText ?? "") } ?? []
  }
}

/// The query of `url` as decoded items, in order (`name` without `=` has a `nil` value).
/// `formDecoding` turns `+` into a space first, as the servers do for `requests`-built URLs.
func queryItems(of url: String, formDecoding: Bool = false) -> [OSSQueryItem] {
  guard let query = URLParts(url).query, !query.isEmpty else { return [] }
  return query.split(separator: "&").map { pair in
    func decode(_ text: Substring) -> String {
      let text = formDecoding ? text.replacingOccurrences(of: "+", with: " ") : String(text)
      return PercentEncoding.decode(text) ?? "<undecodable \(text)>"
    }
    if let equals = pair.firstIndex(of: "=") {
      return OSSQueryItem(decode(pair[..<equals]), decode(pair[pair.index(after: equals)...]))
    }
    return OSSQueryItem(decode(pair), nil)
  }
}

/// Everything in a URL but its query.
func urlWithoutQuery(_ url: String) -> String {
  url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
}

/// The query items as a sorted list of `name=value` texts (bare names as `name`), for comparing
/// URLs whose parameters are in another order.
func sortedQueryTexts(_ items: [OSSQueryItem]) -> [String] {
  items.map { $0.name + ($0.value.map { "=" + $0 } ?? "") }.sorted()
}
