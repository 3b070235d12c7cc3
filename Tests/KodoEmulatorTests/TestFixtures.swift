import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

/// The in-memory objects most tests serve: folders, a folder marker, and awkward keys.
enum SampleObjects {
  static let keys = [
    "a.txt", "b/", "b/1.txt", "b/2.txt", "b/c/3.txt", "b/c/4.txt", "b/d/5.txt", "b0.txt",
    "c+plus.txt", "d e/space file.txt", "emoji/😀.txt", "percent%41.txt", "q?x#y&z=1.txt",
    "z/last.txt", "中文/文件.txt", "\u{301}starts-with-a-combining-mark",
  ]

  static func body(for key: String) -> [UInt8] {
    Array(("content of " + key + "\n").utf8)
  }

  static var objects: [EmulatorObject] {
    keys.map { EmulatorObject(key: $0, body: body(for: $0)) }
  }

  /// `objects` plus a disabled object and one with every optional field.
  static var richObjects: [EmulatorObject] {
    objects + [
      EmulatorObject(key: "x/disabled.bin", body: [1, 2, 3], status: 1),
      EmulatorObject(
        key: "x/full.jpg", body: Array(repeating: 7, count: 100), mimeType: "image/jpeg",
        putTime: 13_603_956_734_587_420, type: 2, md5: "0123456789abcdef0123456789abcdef",
        endUser: "alice", meta: ["b-key": "two", "a-key": "一"], restoreStatus: 2,
        lastModify: 13_603_956_744_587_420, expiration: 1_700_000_000,
        transitionToIA: 1_600_000_000, transitionToArchiveIR: 1_600_086_400,
        transitionToArchive: 1_600_172_800, transitionToDeepArchive: 1_600_259_200),
    ]
  }

  /// A configuration serving `richObjects` as `public` and `objects` as the private `secret`.
  static func configuration(clock: WallClock = .system) -> EmulatorConfiguration {
    EmulatorConfiguration(
      buckets: [.objects("public", richObjects), .objects("secret", objects)],
      privateBuckets: ["secret"], clock: clock)
  }
}

/// A directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
  let path: String

  init() throws {
    path = NSTemporaryDirectory() + "kodo-emulator-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  /// Writes `contents` at `relativePath`, creating folders.
  func write(_ relativePath: String, _ contents: [UInt8]) throws {
    let url = URL(fileURLWithPath: path + "/" + relativePath)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(contents).write(to: url)
  }

  func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }
}

extension JSONValue {
  /// The strings of an array value.
  var strings: [String] { arrayValue?.compactMap(\.stringValue) ?? [] }
}

extension RawHTTPResponse {
  /// The `error` member of a JSON error body.
  var errorMessage: String? { (try? json())?["error"]?.stringValue }
}
