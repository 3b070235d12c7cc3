import Foundation
import KodoTestSupport
import StorageCore
import Testing

@testable import KodoCLI

/// The checkpoint file of an upload in parts: written whole once, then a line per part done,
/// read back as the checkpoint last saved, whatever the order the parts finished in and wherever
/// a killed writer stopped.
@Suite("put: the checkpoint journal")
struct CheckpointJournalTests {
  static let key = UploadCheckpoints.Key(
    provider: "kodo", location: ObjectLocation(bucket: "b", key: "k"), path: "/data/big.bin")

  static func checkpoint(_ numbers: [Int], session: String = "s1") -> UploadCheckpoint {
    UploadCheckpoint(
      session: UploadSession(uploadID: session), partSize: 1 << 20,
      source: SourceIdentity(size: 99 << 20, modifiedNanoseconds: 7),
      parts: numbers.map {
        PartReceipt(
          number: $0, size: 1 << 20, etag: "e\($0)", checksum: "c\($0)", contentSHA1: "h\($0)")
      })
  }

  static func withStore(_ body: (UploadCheckpoints, String) throws -> Void) throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = UploadCheckpoints(directory: directory + "/uploads")
    try body(store, directory + "/uploads/" + key.fileName)
  }

  /// Parts saved in any order and any number at a time: the file holds the record and one line
  /// per part added after it, and reads back as the last checkpoint.
  @Test(arguments: 0..<20)
  func readsBackTheLastCheckpointSaved(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    try Self.withStore { store, path in
      let journal = CheckpointJournal(store, for: Self.key)
      let order = Array(1...40).shuffled(using: &random)
      let first = Int.random(in: 0...3, using: &random)
      var done = Array(order.prefix(first))
      journal.save(Self.checkpoint(done))
      while done.count < order.count {
        let more = Int.random(in: 1...3, using: &random)
        done += order.dropFirst(done.count).prefix(more)
        journal.save(Self.checkpoint(done))
        #expect(store.load(Self.key) == Self.checkpoint(done), "seed \(seed)")
      }
      journal.close()
      let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
      #expect(lines.count == 1 + order.count - first, "a line per part after the record")
    }
  }

  /// A line cut short by a killed process ends the reading: the parts before it are kept.
  @Test func aLineCutShortEndsTheReading() throws {
    try Self.withStore { store, path in
      let journal = CheckpointJournal(store, for: Self.key)
      journal.save(Self.checkpoint([1]))
      journal.save(Self.checkpoint([1, 2, 3]))
      journal.close()
      let whole = try Data(contentsOf: URL(fileURLWithPath: path))
      let cut = whole.dropLast(5)
      try cut.write(to: URL(fileURLWithPath: path))
      #expect(store.load(Self.key) == Self.checkpoint([1, 2]))
    }
  }

  /// A checkpoint of another session starts a new file; a file of the earlier format (the record
  /// alone, no newline) still reads.
  @Test func anotherSessionStartsANewFileAndTheEarlierFormatReads() throws {
    try Self.withStore { store, path in
      let journal = CheckpointJournal(store, for: Self.key)
      journal.save(Self.checkpoint([1, 2]))
      journal.save(Self.checkpoint([5], session: "s2"))
      #expect(store.load(Self.key) == Self.checkpoint([5], session: "s2"))
      journal.close()
      let record = try String(contentsOfFile: path, encoding: .utf8)
      try record.trimmingCharacters(in: .newlines).write(
        toFile: path, atomically: false, encoding: .utf8)
      #expect(store.load(Self.key) == Self.checkpoint([5], session: "s2"))
    }
  }
}
