import Foundation
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

@testable import KodoCLI

/// Keys that differ only by Unicode normalisation, or that put a combining mark after a
/// delimiter, are distinct keys through listing, batch bodies and the emulator, on both
/// protocols (issue 20: bytes, not Characters, on the wire).
@Suite struct CanonicalKeyTests {
  static let composed = "caf\u{E9}"
  static let decomposed = "cafe\u{301}"
  static let marked = "x&\u{301}y=\u{301}1"

  static func bytes(_ keys: [String]) -> [[UInt8]] {
    keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
  }

  @Test(arguments: RemoveTests.wires)
  func equivalentKeysStayTwoKeysThroughABatchDelete(_ wire: EmulatorProtocol) async throws {
    let keys = [Self.composed, Self.decomposed, Self.marked, "keep"]
    try await RemoveTests.with(wire, keys: keys) { _, environment in
      #expect(Self.bytes(try await RemoveTests.keys(environment)) == Self.bytes(keys))
      let removed = try await InProcess.run(
        ["rm", "--yes", "--json", "bkt", Self.decomposed, Self.marked], environment: environment)
      #expect(removed.status == 0, "\(removed)")
      let lines = try RemoveTests.jsonLines(removed.stdoutBytes)
      #expect(
        Self.bytes(lines.compactMap { $0["key"] as? String })
          == Self.bytes([Self.decomposed, Self.marked]))
      #expect(
        Self.bytes(try await RemoveTests.keys(environment)) == Self.bytes([Self.composed, "keep"]))
    }
  }

  @Test(arguments: RemoveTests.wires)
  func equivalentKeysAreCopiedToTheKeyNamed(_ wire: EmulatorProtocol) async throws {
    try await RemoveTests.with(wire, keys: [Self.composed]) { _, environment in
      let copied = try await InProcess.run(
        ["cp", "bkt/" + Self.composed, "bkt/" + Self.decomposed], environment: environment)
      #expect(copied.status == 0, "\(copied)")
      #expect(
        Self.bytes(try await RemoveTests.keys(environment))
          == Self.bytes([Self.composed, Self.decomposed]))
    }
  }

  @Test(arguments: RemoveTests.wires)
  func anObjectMovesToAnEquivalentKey(_ wire: EmulatorProtocol) async throws {
    try await RemoveTests.with(wire, keys: [Self.composed]) { _, environment in
      let moved = try await InProcess.run(
        ["mv", "bkt/" + Self.composed, "bkt/" + Self.decomposed], environment: environment)
      #expect(moved.status == 0, "\(moved)")
      #expect(Self.bytes(try await RemoveTests.keys(environment)) == Self.bytes([Self.decomposed]))
    }
  }
}
