import Foundation
import KodoTestSupport
import Testing

/// Issue 10 §1: `get` never writes where it should not, and `cat` never destroys what it did not
/// write. Commands run in process (so the process id an attacker would guess is this one's)
/// against a real emulator.
@Suite("Files: get and cat never write where they should not", .serialized)
struct FileSafetyTests {
  static let longName = String(repeating: "n", count: 241) + ".txt"
  static let files: [String: [UInt8]] = [
    "report.csv": Array("a,b\n1,2\n".utf8),
    "a": Array("one letter\n".utf8),
    "x/a": Array("nested one letter\n".utf8),
    longName: Array("long name\n".utf8),
    "big.bin": (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) },
  ]

  let emulator: EmulatorProcess
  let environment: [String: String]
  let work: String

  init() async throws {
    let root = try temporaryDirectory()
    for (key, bytes) in Self.files {
      let path = root + "/files/" + key
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }
    emulator = try await EmulatorProcess(["--bucket", "files=\(root)/files"])
    environment = ["KODO_CONFIG": try emulator.configFile()]
    work = try temporaryDirectory()
  }

  @Test func aSymlinkPlantedAtTheOldTemporaryNameIsNotWrittenThrough() async throws {
    let victim = work + "/victim.txt"
    _ = FileManager.default.createFile(atPath: victim, contents: Data("precious\n".utf8))
    // The name the old `get` used: `.NAME.kodo-PID.part`, PID being this process's.
    try FileManager.default.createSymbolicLink(
      atPath: work + "/.report.csv.kodo-\(getpid()).part", withDestinationPath: victim)
    let result = try await InProcess.run(
      ["get", "files", "report.csv", "-o", work + "/report.csv"], environment: environment)
    #expect(result.status == 0, "\(result)")
    #expect(FileManager.default.contents(atPath: victim) == Data("precious\n".utf8))
    #expect(
      FileManager.default.contents(atPath: work + "/report.csv")
        == Data(Self.files["report.csv"] ?? []))
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: work).filter {
      $0.hasPrefix(".kodo-")
    }
    #expect(leftovers.isEmpty, "no temporary file is left behind")
    // A new file gets the umask's mode, not the temporary 0600.
    let mode =
      try FileManager.default.attributesOfItem(atPath: work + "/report.csv")[.posixPermissions]
      as? Int
    #expect(mode.map { $0 & 0o600 } == 0o600)
  }

  @Test func oneCharacterNamesWork() async throws {
    for (arguments, file) in [
      (["get", "files", "a", "-o", work + "/b"], "/b"),
      (["get", "files", "x/a", "-o", work], "/a"),
    ] {
      let result = try await InProcess.run(arguments, environment: environment)
      #expect(result.status == 0, "\(result)")
      #expect(FileManager.default.fileExists(atPath: work + file))
    }
    let relative = try await InProcess.run(
      ["get", "files", "a", "-o", "c"], environment: environment)
    #expect(relative.status == 0, "\(relative)")
    #expect(FileManager.default.contents(atPath: "c") == Data(Self.files["a"] ?? []))
    unlink("c")
  }

  @Test(arguments: [".", "..", "a/..", "a/.", "dir/"], [false, true])
  func keysWithoutAFileNameNeedO(_ key: String, force: Bool) async throws {
    // --force replaces a file; it never makes a directory (or its parent) the destination.
    let result = try await InProcess.run(
      ["get"] + (force ? ["--force"] : []) + ["files", key], environment: environment)
    expectFailure(result, status: 65, containing: "-o PATH")
  }

  @Test func aLegalLongFileNameDownloads() async throws {
    let result = try await InProcess.run(
      ["get", "files", Self.longName, "-o", work], environment: environment)
    #expect(result.status == 0, "\(result)")
    #expect(FileManager.default.fileExists(atPath: work + "/" + Self.longName))
  }

  @Test func aDanglingSymlinkAtTheDestinationCountsAsExisting() async throws {
    let link = work + "/dangling.csv"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: work + "/nowhere")
    let result = try await InProcess.run(
      ["get", "files", "report.csv", "-o", link], environment: environment)
    expectFailure(result, status: 65, containing: "exists; pass --force to replace it")
    #expect(!FileManager.default.fileExists(atPath: work + "/nowhere"))
    // With --force the link itself is replaced, not its target.
    let forced = try await InProcess.run(
      ["get", "--force", "files", "report.csv", "-o", link], environment: environment)
    #expect(forced.status == 0, "\(forced)")
    #expect(!FileManager.default.fileExists(atPath: work + "/nowhere"))
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == nil)
  }

  @Test func catAppendingToAFileNeverTruncatesIt() async throws {
    let path = work + "/log.txt"
    _ = FileManager.default.createFile(atPath: path, contents: Data("earlier contents\n".utf8))
    // The first answer breaks off after half the body: a retry would have to take back what
    // reached the file, which kodo must never do to a file opened for appending.
    try await emulator.scheduleFault(endpoint: "download", mode: "short-body", count: 1)
    let result = try await InProcess.run(
      ["cat", "files", "big.bin"], environment: environment, stdout: path,
      stdoutFlags: O_WRONLY | O_APPEND)
    try await emulator.clearFaults()
    let contents = Array(FileManager.default.contents(atPath: path) ?? Data())
    #expect(contents.starts(with: Array("earlier contents\n".utf8)), "\(result)")
    // Either it failed after writing part of the object, or it completed on a retry that wrote
    // nothing twice: never more than the earlier contents and one copy of the object.
    #expect(contents.count <= 17 + 300_000)
  }

  @Test func catToAFileRewindsOnlyWhatItWrote() async throws {
    let path = work + "/out.bin"
    try await emulator.scheduleFault(endpoint: "download", mode: "short-body", count: 1)
    let result = try await InProcess.run(
      ["cat", "files", "big.bin"], environment: environment, stdout: path)
    try await emulator.clearFaults()
    #expect(result.status == 0, "\(result)")
    #expect(FileManager.default.contents(atPath: path) == Data(Self.files["big.bin"] ?? []))
  }

  /// A download that fails before its first byte is retried even into a pipe (it used to say
  /// "the download was interrupted" and give up).
  @Test func catToAPipeIsRetriedWhenNothingWasWrittenYet() async throws {
    try await emulator.scheduleFault(endpoint: "download", mode: "drop", count: 1)
    let result = try await CLIRunner("kodo", environment: environment).run([
      "cat", "files", "big.bin",
    ])
    try await emulator.clearFaults()
    #expect(result.status == 0, "\(result)")
    #expect(result.stdoutBytes == Self.files["big.bin"])
  }

  @Test func getOntoAnExistingFileSaysWhichFlagReplacesIt() async throws {
    let path = work + "/there.csv"
    _ = FileManager.default.createFile(atPath: path, contents: Data("mine\n".utf8))
    let result = try await InProcess.run(
      ["get", "files", "report.csv", "-o", path], environment: environment)
    expectFailure(result, status: 65, containing: "pass --force to replace it")
    #expect(FileManager.default.contents(atPath: path) == Data("mine\n".utf8))
  }

  @Test func getToStdout() async throws {
    let result = try await InProcess.run(
      ["get", "files", "report.csv", "-o", "-"], environment: environment)
    #expect(result.status == 0, "\(result)")
    #expect(result.stdoutBytes == Self.files["report.csv"])
  }
}

/// Issue 10 §3 for `get`'s own messages: the file name comes from the key.
@Suite("get's messages escape the file name")
struct GetMessageTests {
  @Test func wroteAndExistsLinesEscapeTheName() async throws {
    let root = try temporaryDirectory()
    let name = "esc\u{1B}[31mred\nforged.txt"
    try FileManager.default.createDirectory(atPath: root + "/b", withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: root + "/b/" + name, contents: Data("x".utf8))
    let emulator = try await EmulatorProcess(["--bucket", "b=\(root)/b"])
    let environment = ["KODO_CONFIG": try emulator.configFile()]
    let work = try temporaryDirectory()
    let wrote = try await InProcess.run(
      ["get", "b", name, "-o", work], environment: environment)
    #expect(wrote.status == 0, "\(wrote)")
    #expect(wrote.stderr.contains(#"esc\u{1B}[31mred\nforged.txt"#), "\(wrote.stderr)")
    expectNoRawControlCharacters(stderrOf: wrote)
    #expect(wrote.stderr.split(separator: "\n").count == 1)
    let exists = try await InProcess.run(
      ["get", "b", name, "-o", work], environment: environment)
    expectFailure(exists, status: 65, containing: #"red\nforged.txt" exists"#)
  }
}
