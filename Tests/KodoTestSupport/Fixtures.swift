public import Foundation
import KodoCore
public import StorageCore

/// Paths of the repository and its test fixtures, found from this source file.
public enum Fixtures {
  /// The repository root.
  public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// `Tests/Fixtures/<name>`.
  public static func url(_ name: String) -> URL {
    repositoryRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(name)
  }

  /// The text of `Tests/Fixtures/<name>`.
  public static func text(_ name: String) throws -> String {
    try String(contentsOf: url(name), encoding: .utf8)
  }
}

/// Accessors over `JSONValue` for reading test data.
extension JSONValue {
  public subscript(_ name: String) -> JSONValue? {
    objectMembers?.first(where: { $0.name == name })?.value
  }

  public var stringValue: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  public var int64Value: Int64? {
    if case .number(let text) = self { return Int64(text) }
    return nil
  }

  public var arrayValue: [JSONValue]? {
    if case .array(let values) = self { return values }
    return nil
  }

  public var isNull: Bool { self == .null }
}
