import Foundation
import KodoEmulator
import KodoTestSupport
import Testing

@testable import KodoCLI

/// `u`, `t` and quitting with transfers running, in the real `kodo browse` in a detached tmux,
/// against a writable in-memory bucket of an emulator speaking Kodo or OSS; what was uploaded
/// is read back with `kodo ls -r --json` and `kodo cat`. The local files are written into the
/// session's directory (where the browser runs), typed as relative paths.
@Suite("kodo browse uploads and the transfer queue, in tmux", .serialized)
struct BrowseUploadEndToEndTests {
  typealias Write = BrowseWriteEndToEndTests

  /// An emulator speaking `wire` (each request `latency` ms late) with a writable bucket `bkt`
  /// holding `keys` (each object's content is its key), and kodo's environment for it.
  static func with(
    _ wire: EmulatorProtocol, keys: [String], latency: Int = 0, downloadLatency: Int = 0,
    _ body: ([String: String]) async throws -> Void
  ) async throws {
    var configuration = EmulatorConfiguration(
      credentials: RemoveTests.credentials,
      buckets: [.objects("bkt", keys.map { EmulatorObject(key: $0, body: Array($0.utf8)) })],
      latencyMilliseconds: latency)
    configuration.wireProtocol = wire
    configuration.downloadLatencyMilliseconds = downloadLatency
    try await EmulatorHarness.with(configuration) { emulator in
      let secret = "rm-secret-key"
      let environment: [String: String] =
        wire == .oss
        ? [
          "KODO_PROVIDER": "oss", "OSS_ENDPOINT": emulator.server.baseURL,
          "OSS_REGION": emulator.server.region,
          "OSS_ACCESS_KEY_ID": RemoveTests.credentials.accessKey, "OSS_ACCESS_KEY_SECRET": secret,
        ]
        : [
          "KODO_ENDPOINT": emulator.server.baseURL,
          "QINIU_ACCESS_KEY": RemoveTests.credentials.accessKey, "QINIU_SECRET_KEY": secret,
        ]
      try await body(environment)
    }
  }

  /// Writes `text` to `path` below the session's directory (its folders made).
  static func write(_ text: String, _ path: String, in session: TmuxSession) throws {
    let url = URL(fileURLWithPath: session.directory).appendingPathComponent(path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  /// `u`, `path` typed, Enter.
  static func upload(_ session: TmuxSession, _ path: String) async throws {
    try await session.keys("u")
    try await Write.expectScreen(session, "the upload prompt") { $0.contains("upload here") }
    try await session.type(path)
    try await session.keys("Enter")
  }

  @Test(arguments: RemoveTests.wires)
  func uploadsAFileAndAFolderUnderItsNameShownAtOnce(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire, keys: ["a.txt"]) { environment in
      let session = try await Write.browse("bkt", environment)
      try await Write.expectScreen(session, "the folder") { $0.contains("1 entry") }
      try Self.write("hello", "up.txt", in: session)
      try Self.write("one", "tree/1.txt", in: session)
      try Self.write("two", "tree/sub/2.txt", in: session)
      try await Self.upload(session, "up.txt")
      try await Write.expectScreen(session, "the file uploaded and shown") {
        $0.contains("uploaded up.txt: 1 object") && Write.row($0, "up.txt")
      }
      #expect(try await RemoveTests.keys(environment) == ["a.txt", "up.txt"])
      #expect(try await Write.body("up.txt", environment) == "hello")
      try await Self.upload(session, "tree")
      try await Write.expectScreen(session, "the folder uploaded and shown") {
        $0.contains("uploaded tree: 2 objects") && Write.row($0, "tree/")
      }
      #expect(
        try await RemoveTests.keys(environment) == [
          "a.txt", "tree/1.txt", "tree/sub/2.txt", "up.txt",
        ])
      #expect(try await Write.body("tree/sub/2.txt", environment) == "two")
      // The queue lists both, done.
      try await session.keys("t")
      try await Write.expectScreen(session, "the queue") {
        $0.contains("upload · up.txt · 1/1 objects") && $0.contains("upload · tree · 2/2 objects")
          && $0.contains("2 transfers, 0 running")
      }
      try await session.keys("Escape", "q")
      #expect(try await session.exitStatus() == 0)
      try await BrowseEndToEndTests.expectSane(session)
    }
  }

  @Test(arguments: RemoveTests.wires)
  func anExistingKeyIsRefusedThenReplacedAfterY(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire, keys: ["a.txt", "b.txt"]) { environment in
      let session = try await Write.browse("bkt", environment)
      try await Write.expectScreen(session, "the folder") { $0.contains("2 entries") }
      try Self.write("new a", "a.txt", in: session)
      for answer in ["n", "y"] {
        try await Self.upload(session, "a.txt")
        try await Write.expectScreen(session, "the question") {
          $0.contains("replace 1 existing object? [y/N]")
        }
        #expect(try await Write.body("a.txt", environment) == "a.txt")
        try await session.keys(answer)
      }
      try await Write.expectScreen(session, "the replacing upload") {
        $0.contains("uploaded a.txt: 1 object") && $0.contains("2 entries")
      }
      #expect(try await RemoveTests.keys(environment) == ["a.txt", "b.txt"])
      #expect(try await Write.body("a.txt", environment) == "new a")
      try await session.keys("q")
      #expect(try await session.exitStatus() == 0)
    }
  }

  /// A file in parts (48 MiB: several rounds of parts, each request 1.5 s late, so that it still
  /// runs when `x` comes), cancelled with `x` in the queue: no object appears (a part or a
  /// session is not an object).
  @Test(arguments: RemoveTests.wires)
  func aCancelledUploadLeavesNoObject(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire, keys: ["a.txt"], latency: 1500) { environment in
      let session = try await Write.browse("bkt", environment)
      try await Write.expectScreen(session, "the folder") { $0.contains("1 entry") }
      try Self.write(String(repeating: "0123456789abcdef", count: 3 << 20), "big.bin", in: session)
      try await Self.upload(session, "big.bin")
      try await session.keys("t")
      // Midway: some parts held by the service (their bytes counted), not all.
      try await Write.expectScreen(session, "the upload running, parts sent") {
        $0.contains("upload · big.bin · 0/1 objects") && $0.contains(" MiB/")
          && !$0.contains("· 0 B/") && $0.contains("1 running")
      }
      try await session.keys("x")
      try await Write.expectScreen(session, "the upload cancelled") {
        $0.contains("cancelled") && $0.contains("0 running")
      }
      try await session.keys("q")
      // Nothing running: q in the list quits at once.
      try await session.keys("q")
      #expect(try await session.exitStatus() == 0)
      #expect(try await RemoveTests.keys(environment) == ["a.txt"])
    }
  }

  /// `q` while an upload runs asks; `n` stays, `y` quits (the upload cancelled: no object),
  /// the terminal as it was.
  @Test(arguments: RemoveTests.wires)
  func quittingWithATransferRunningAsksFirst(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire, keys: ["a.txt"], latency: 1500) { environment in
      let session = try await Write.browse("bkt", environment)
      try await Write.expectScreen(session, "the folder") { $0.contains("1 entry") }
      try Self.write(String(repeating: "0123456789abcdef", count: 3 << 20), "big.bin", in: session)
      try await Self.upload(session, "big.bin")
      try await Write.expectScreen(session, "the upload running") { $0.contains("uploading") }
      try await session.keys("q")
      try await Write.expectScreen(session, "the question") {
        $0.contains("1 transfer running: quit and cancel them? [y/N]")
      }
      try await session.keys("n")
      try await Write.expectScreen(session, "still browsing") {
        !$0.contains("quit and cancel") && Write.row($0, "a.txt")
      }
      try await session.keys("q")
      try await Write.expectScreen(session, "the question again") {
        $0.contains("quit and cancel them?")
      }
      try await session.keys("y")
      #expect(try await session.exitStatus() == 0)
      try await BrowseEndToEndTests.expectSane(session)
      #expect(try await RemoveTests.keys(environment) == ["a.txt"])
    }
  }

  /// A download (`s`) whose answer the emulator holds back, cancelled with `x` in the queue
  /// once its temporary file exists: the temporary file is removed and no file is written.
  @Test(arguments: RemoveTests.wires)
  func aCancelledDownloadLeavesNoFile(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire, keys: ["a.txt"], downloadLatency: 5000) { environment in
      let session = try await Write.browse("bkt", environment)
      try await Write.expectScreen(session, "the folder") { $0.contains("1 entry") }
      func temporaries() -> [String] {
        let found = try? FileManager.default.subpathsOfDirectory(atPath: session.directory)
        return (found ?? []).filter { $0.hasSuffix(".part") }
      }
      try await session.keys("s")
      let started = Patience.deadline
      while temporaries().isEmpty && ContinuousClock.now < started {
        try await Task.sleep(for: .milliseconds(20))
      }
      let screen = try await session.screen()
      #expect(!temporaries().isEmpty, "\(screen)")
      try await session.keys("t")
      try await Write.expectScreen(session, "the download running") {
        $0.contains("download · a.txt") && $0.contains("1 running")
      }
      try await session.keys("x")
      try await Write.expectScreen(session, "the download cancelled") {
        $0.contains("cancelled") && $0.contains("0 running")
      }
      let removed = Patience.deadline
      while !temporaries().isEmpty && ContinuousClock.now < removed {
        try await Task.sleep(for: .milliseconds(20))
      }
      #expect(temporaries().isEmpty, "\(temporaries())")
      #expect(session.file("a.txt") == nil)
      try await session.keys("q", "q")
      #expect(try await session.exitStatus() == 0)
      #expect(session.file("a.txt") == nil)
    }
  }

  /// The files of the folder `many` (in subfolders too): each file's path and content, of
  /// sizes from a few bytes to 24 KiB.
  static func manyFiles(_ count: Int) -> [(path: String, text: String)] {
    (0..<count).map { index in
      let path = index % 3 == 0 ? "many/sub/file-\(index).txt" : "many/file-\(index).txt"
      return (path, String(repeating: "file \(index) ", count: 1 + index * index % 2500))
    }
  }

  /// A folder of many small files, which `u` sends several at once (as `put -r`): every file
  /// lands, under its path, with its exact content; the queue counts them all.
  @Test(arguments: RemoveTests.wires)
  func aFolderOfManyFilesLandsWholeAndExact(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire, keys: ["a.txt"]) { environment in
      let session = try await Write.browse("bkt", environment)
      try await Write.expectScreen(session, "the folder") { $0.contains("1 entry") }
      let files = Self.manyFiles(30)
      for file in files { try Self.write(file.text, file.path, in: session) }
      try await Self.upload(session, "many")
      try await Write.expectScreen(session, "the folder uploaded and shown") {
        $0.contains("uploaded many: 30 objects") && Write.row($0, "many/")
      }
      #expect(
        try await RemoveTests.keys(environment)
          == (["a.txt"] + files.map(\.path)).sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
          })
      for file in files {
        #expect(try await Write.body(file.path, environment) == file.text, "\(file.path)")
      }
      try await session.keys("t")
      try await Write.expectScreen(session, "the queue") {
        $0.contains("upload · many · 30/30 objects") && $0.contains("1 transfer, 0 running")
      }
      try await session.keys("Escape", "q")
      #expect(try await session.exitStatus() == 0)
    }
  }

  /// The same folder upload, every request 1.5 s late, cancelled with `x` once some files are
  /// done: it stops, and what the bucket holds of it is whole (each object its file's exact
  /// content), not all of it.
  @Test(arguments: RemoveTests.wires)
  func aCancelledFolderUploadLeavesOnlyWholeObjects(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire, keys: ["a.txt"], latency: 1500) { environment in
      let session = try await Write.browse("bkt", environment)
      try await Write.expectScreen(session, "the folder") { $0.contains("1 entry") }
      let files = Self.manyFiles(30)
      for file in files { try Self.write(file.text, file.path, in: session) }
      try await Self.upload(session, "many")
      try await session.keys("t")
      try await Write.expectScreen(session, "the upload running, some files done") { screen in
        (1..<30).contains { screen.contains("upload · many · \($0)/30 objects") }
          && screen.contains("1 running")
      }
      try await session.keys("x")
      try await Write.expectScreen(session, "the upload cancelled") {
        $0.contains("cancelled") && $0.contains("0 running")
      }
      try await session.keys("q", "q")
      #expect(try await session.exitStatus() == 0)
      let texts = Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0.text) })
      let landed = try await RemoveTests.keys(environment).filter { $0 != "a.txt" }
      #expect(!landed.isEmpty && landed.count < files.count, "\(landed)")
      for key in landed {
        let body = try await Write.body(key, environment)
        #expect(texts[key] != nil && body == texts[key], "\(key)")
      }
    }
  }
}
