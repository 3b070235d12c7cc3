import Foundation
import KodoEmulator
import KodoTestSupport
import Testing

/// `kodo set` and `kodo restore` against in-process emulators speaking Kodo and OSS, every
/// result read back with `kodo stat --json`.
@Suite struct SetRestoreTests {
  /// Objects with a content type and metadata to keep, archived ones, and one being restored.
  static let objects = [
    EmulatorObject(
      key: "a.txt", body: Array("a".utf8), mimeType: "text/plain",
      meta: ["owner": "ana", "team": "x"]),
    EmulatorObject(key: "b.txt", body: Array("b".utf8), mimeType: "text/plain"),
    EmulatorObject(key: "c d.txt", body: Array("c".utf8), mimeType: "text/plain"),
    EmulatorObject(key: "cold.bin", body: Array("cold".utf8), type: 2),
    EmulatorObject(key: "colder.bin", body: Array("colder".utf8), type: 3),
    EmulatorObject(key: "thawing.bin", body: Array("t".utf8), type: 2, restoreStatus: 1),
  ]

  /// An emulator speaking `wire` with a writable bucket `bkt` holding `objects`, and kodo's
  /// environment for it.
  static func with(
    _ wire: EmulatorProtocol, failRate: Double = 0, seed: UInt64 = 0,
    _ body: (EmulatorHarness, [String: String]) async throws -> Void
  ) async throws {
    var configuration = EmulatorConfiguration(
      credentials: RemoveTests.credentials, buckets: [.objects("bkt", objects)],
      failRate: failRate, seed: seed)
    configuration.wireProtocol = wire
    try await EmulatorHarness.with(configuration) { emulator in
      let environment: [String: String] =
        wire == .oss
        ? [
          "KODO_PROVIDER": "oss", "OSS_ENDPOINT": emulator.server.baseURL,
          "OSS_REGION": emulator.server.region,
          "OSS_ACCESS_KEY_ID": RemoveTests.credentials.accessKey,
          "OSS_ACCESS_KEY_SECRET": "rm-secret-key",
        ]
        : [
          "KODO_ENDPOINT": emulator.server.baseURL,
          "QINIU_ACCESS_KEY": RemoveTests.credentials.accessKey,
          "QINIU_SECRET_KEY": "rm-secret-key",
        ]
      try await body(emulator, environment)
    }
  }

  /// The object's fields as `kodo stat --json` prints them.
  static func stat(
    _ key: String, _ environment: [String: String], retries: [String] = []
  ) async throws -> [String: Any] {
    let read = try await InProcess.run(
      retries + ["stat", "--json", "bkt", key], environment: environment)
    #expect(read.status == 0, "\(read)")
    return try #require(RemoveTests.jsonLines(read.stdoutBytes).first)
  }

  static func meta(_ fields: [String: Any]) -> [String: String] {
    fields["meta"] as? [String: String] ?? [:]
  }

  @Test(arguments: RemoveTests.wires)
  func mimeAloneKeepsTheMetadataAndMetaKeepsTheOthers(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire) { _, environment in
      let mime = try await InProcess.run(
        ["set", "bkt", "a.txt", "--mime", "application/json"], environment: environment)
      #expect(mime.status == 0, "\(mime)")
      #expect(mime.stdout.isEmpty, "\(mime)")
      #expect(mime.stderr.contains("changed 1 of 1 object in bucket \"bkt\""), "\(mime)")
      var fields = try await Self.stat("a.txt", environment)
      #expect(fields["mimeType"] as? String == "application/json")
      #expect(Self.meta(fields) == ["owner": "ana", "team": "x"])
      #expect(fields["storageClass"] as? String == "standard")

      let meta = try await InProcess.run(
        ["set", "bkt/a.txt", "--meta", "owner=bo", "--meta", "added=1 = one"],
        environment: environment)
      #expect(meta.status == 0, "\(meta)")
      fields = try await Self.stat("a.txt", environment)
      #expect(fields["mimeType"] as? String == "application/json")
      #expect(Self.meta(fields) == ["owner": "bo", "team": "x", "added": "1 = one"])
      #expect(fields["size"] as? Int == 1)
      let content = try await InProcess.run(["cat", "bkt/a.txt"], environment: environment)
      #expect(content.stdout == "a", "\(content)")
    }
  }

  @Test(arguments: RemoveTests.wires)
  func storageClassChangesAloneAndTogether(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire) { _, environment in
      let ia = try await InProcess.run(
        ["set", "--json", "bkt", "a.txt", "--storage-class", "ia"], environment: environment)
      #expect(ia.status == 0, "\(ia)")
      #expect(ia.stdout == #"{"type":"set","key":"a.txt"}"# + "\n", "\(ia)")
      var fields = try await Self.stat("a.txt", environment)
      #expect(fields["storageClass"] as? String == "ia")
      #expect(fields["mimeType"] as? String == "text/plain")
      #expect(Self.meta(fields) == ["owner": "ana", "team": "x"])

      let both = try await InProcess.run(
        ["set", "bkt", "a.txt", "--storage-class", "standard", "--mime", "text/csv"],
        environment: environment)
      #expect(both.status == 0, "\(both)")
      fields = try await Self.stat("a.txt", environment)
      #expect(fields["storageClass"] as? String == "standard")
      #expect(fields["mimeType"] as? String == "text/csv")
      #expect(Self.meta(fields) == ["owner": "ana", "team": "x"])

      let unknown = try await InProcess.run(
        ["set", "bkt", "a.txt", "--storage-class", "frozen"], environment: environment)
      #expect(unknown.status == 65, "\(unknown)")
      #expect(unknown.stderr.contains("no storage class \"frozen\""), "\(unknown)")
    }
  }

  @Test func statusIsKodosAndChangesOnlyTheStatus() async throws {
    try await Self.with(.kodo) { _, environment in
      let disabled = try await InProcess.run(
        ["set", "bkt", "a.txt", "--status", "disabled"], environment: environment)
      #expect(disabled.status == 0, "\(disabled)")
      var fields = try await Self.stat("a.txt", environment)
      #expect(fields["status"] as? String == "disabled")
      #expect(fields["mimeType"] as? String == "text/plain")
      #expect(Self.meta(fields) == ["owner": "ana", "team": "x"])
      let enabled = try await InProcess.run(
        ["set", "bkt", "a.txt", "--status", "enabled"], environment: environment)
      #expect(enabled.status == 0, "\(enabled)")
      fields = try await Self.stat("a.txt", environment)
      #expect(fields["status"] as? String == "enabled")
    }
    try await Self.with(.oss) { _, environment in
      let refused = try await InProcess.run(
        ["set", "bkt", "a.txt", "--mime", "text/csv", "--status", "disabled"],
        environment: environment)
      #expect(refused.status == 64, "\(refused)")
      #expect(refused.stderr.contains("--status is Kodo's"), "\(refused)")
      let fields = try await Self.stat("a.txt", environment)
      #expect(fields["mimeType"] as? String == "text/plain", "nothing was changed")
    }
  }

  @Test(arguments: RemoveTests.wires)
  func aMissingKeyIsReportedAndTheOthersAreStillChanged(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire) { _, environment in
      let run = try await InProcess.run(
        ["set", "--json", "bkt", "b.txt", "missing.txt", "c d.txt", "--meta", "k=v"],
        environment: environment)
      #expect(run.status == 66, "\(run)")
      let lines = try RemoveTests.jsonLines(run.stdoutBytes)
      #expect(lines.map { $0["type"] as? String } == ["set", "set"])
      #expect(lines.map { $0["key"] as? String } == ["b.txt", "c d.txt"])
      #expect(run.stderr.contains("missing.txt"), "\(run)")
      #expect(run.stderr.contains(#""type":"error","exit":66"#), "\(run)")
      #expect(
        run.stderr.contains("changed 2 of 3 objects in bucket \"bkt\"; 1 not found"), "\(run)")
      for key in ["b.txt", "c d.txt"] {
        #expect(Self.meta(try await Self.stat(key, environment)) == ["k": "v"])
      }
    }
  }

  @Test(arguments: RemoveTests.wires)
  func usageErrorsChangeNothing(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire) { _, environment in
      for arguments in [
        ["set", "bkt", "a.txt"], ["set", "bkt", "a.txt", "--meta", "novalue"],
        ["set", "bkt", "a.txt", "--meta", "=v"], ["restore", "bkt", "cold.bin"],
        ["restore", "bkt", "cold.bin", "--days", "0"],
        ["restore", "bkt", "cold.bin", "--days", "8"],
      ] {
        let run = try await InProcess.run(arguments, environment: environment)
        #expect(run.status == 64, "\(arguments) \(run)")
        #expect(run.stderr.hasPrefix("kodo: error: "), "\(arguments) \(run)")
      }
      let fields = try await Self.stat("cold.bin", environment)
      #expect(fields["restoreStatus"] == nil)
      #expect(
        Self.meta(try await Self.stat("a.txt", environment)) == ["owner": "ana", "team": "x"])
    }
  }

  @Test(arguments: RemoveTests.wires)
  func restoreThawsArchivedObjectsAndStatShowsIt(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire) { _, environment in
      let before = try await Self.stat("cold.bin", environment)
      #expect(before["restoreStatus"] == nil)
      let unreadable = try await InProcess.run(["cat", "bkt/cold.bin"], environment: environment)
      #expect(unreadable.status != 0, "an archived object is not readable: \(unreadable)")

      let restored = try await InProcess.run(
        ["restore", "--json", "--days", "2", "bkt", "cold.bin", "colder.bin"],
        environment: environment)
      #expect(restored.status == 0, "\(restored)")
      #expect(
        restored.stdout == #"{"type":"restore","key":"cold.bin","days":2}"# + "\n"
          + #"{"type":"restore","key":"colder.bin","days":2}"# + "\n", "\(restored)")
      #expect(
        restored.stderr.contains("asked to restore 2 of 2 objects in bucket \"bkt\" for 2 days"))
      for key in ["cold.bin", "colder.bin"] {
        let fields = try await Self.stat(key, environment)
        #expect(fields["restoreStatus"] as? String == "restored", "\(key) \(fields)")
      }
      let text = try await InProcess.run(["stat", "bkt", "cold.bin"], environment: environment)
      #expect(text.stdout.contains("restored"), "\(text)")
      let content = try await InProcess.run(["cat", "bkt/cold.bin"], environment: environment)
      #expect(content.status == 0, "\(content)")
      #expect(content.stdout == "cold")
      // Asking again for a restored object is no error.
      let again = try await InProcess.run(
        ["restore", "--days", "1", "bkt/cold.bin"], environment: environment)
      #expect(again.status == 0, "\(again)")
    }
  }

  @Test(arguments: RemoveTests.wires)
  func restoreOfAnObjectThatIsNotArchivedFailsClearly(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire) { _, environment in
      let run = try await InProcess.run(
        ["restore", "--days", "1", "bkt", "b.txt", "cold.bin", "nope.bin"],
        environment: environment)
      #expect(run.status == 65, "\(run)")
      let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("kodo: error: ") }
      #expect(errors.count == 2, "\(run)")
      #expect(errors.first?.contains("b.txt") == true, "\(run)")
      #expect(errors.first?.contains("archive") == true, "\(run)")
      #expect(errors.last?.contains("nope.bin") == true, "\(run)")
      #expect(run.stderr.contains("asked to restore 1 of 3 objects"), "\(run)")
      #expect(
        try await Self.stat("cold.bin", environment)["restoreStatus"] as? String == "restored")
      #expect(try await Self.stat("b.txt", environment)["restoreStatus"] == nil)
    }
  }

  @Test func aRestoreUnderWayOnOSSIsNoErrorAndStaysUnderWay() async throws {
    try await Self.with(.oss) { _, environment in
      #expect(
        try await Self.stat("thawing.bin", environment)["restoreStatus"] as? String == "restoring")
      let run = try await InProcess.run(
        ["restore", "--days", "3", "bkt", "thawing.bin"], environment: environment)
      #expect(run.status == 0, "\(run)")
      #expect(
        try await Self.stat("thawing.bin", environment)["restoreStatus"] as? String == "restoring")
    }
  }

  @Test(arguments: RemoveTests.wires)
  func faultsAreRetriedToExactResults(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire, failRate: 0.2, seed: 11) { emulator, environment in
      let retries = ["--retries", "10"]
      let set = try await InProcess.run(
        retries + [
          "set", "--json", "bkt", "a.txt", "b.txt", "c d.txt", "--meta", "owner=zed",
          "--mime", "text/markdown", "--storage-class", "ia",
        ], environment: environment)
      #expect(set.status == 0, "\(set)")
      #expect(try RemoveTests.jsonLines(set.stdoutBytes).count == 3, "\(set)")
      let restore = try await InProcess.run(
        retries + ["restore", "--days", "5", "bkt", "cold.bin", "colder.bin"],
        environment: environment)
      #expect(restore.status == 0, "\(restore)")
      let stats = emulator.server.stats
      #expect(stats.faults > 0, "the fail rate did fail requests: \(stats)")
      for key in ["a.txt", "b.txt", "c d.txt"] {
        let fields = try await Self.stat(key, environment, retries: retries)
        #expect(fields["mimeType"] as? String == "text/markdown", "\(key)")
        #expect(fields["storageClass"] as? String == "ia", "\(key)")
        let expected = key == "a.txt" ? ["owner": "zed", "team": "x"] : ["owner": "zed"]
        #expect(Self.meta(fields) == expected, "\(key)")
      }
      for key in ["cold.bin", "colder.bin"] {
        let fields = try await Self.stat(key, environment, retries: retries)
        #expect(fields["restoreStatus"] as? String == "restored", "\(key)")
      }
    }
  }

  @Test func otherToolsVerbsPointHere() async throws {
    try await Self.with(.kodo) { _, environment in
      for (arguments, text) in [
        (["chgm", "bkt:a.txt", "text/csv"], "kodo set [BUCKET] KEY..."),
        (["chtype", "bkt", "a.txt", "1"], "kodo set [BUCKET] KEY..."),
        (["restorear", "bkt:cold.bin", "2"], "kodo restore [BUCKET] KEY... --days N"),
      ] {
        let run = try await InProcess.run(arguments, environment: environment)
        #expect(run.status == 64, "\(arguments) \(run)")
        #expect(run.stderr.contains(text), "\(arguments) \(run)")
      }
    }
  }

  @Test func keysComplete() async throws {
    let keys = try await CompletionTests.inProcess(
      ["set"], "positional@0", ["kodo", "set", "logs", "2024-06-0"])
    #expect(keys.lines == ["2024-06-01/", "2024-06-02/"], "\(keys)")
    let restore = try await CompletionTests.inProcess(
      ["restore"], "positional@0", ["kodo", "restore", "logs", "2024-06-01/"])
    #expect(restore.lines == ["2024-06-01/app.log"], "\(restore)")
  }
}
