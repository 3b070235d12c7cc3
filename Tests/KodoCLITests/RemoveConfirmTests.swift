import Foundation
import KodoCLI
import KodoEmulator
import KodoTestSupport
import Testing

/// `kodo rm`'s questions on a terminal: a pseudo-terminal is its stdin and stderr, the answer
/// is typed into it before the run.
@Suite struct RemoveConfirmTests {
  /// Runs kodo with a pseudo-terminal as stdin and stderr, `typed` waiting in its input;
  /// answers the status and what reached the terminal.
  static func runOnTerminal(
    _ arguments: [String], typed: String, environment: [String: String]
  ) async throws -> (status: Int32, terminal: String) {
    // posix_openpt and friends are not imported from Glibc: /dev/ptmx and its two ioctls
    // (TIOCSPTLCK = _IOW('T', 0x31, int), TIOCGPTN = _IOR('T', 0x30, unsigned int)).
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    try #require(master >= 0)
    defer { close(master) }
    var unlock: Int32 = 0
    var number: UInt32 = 0
    try #require(ioctl(master, UInt(0x4004_5431), &unlock) == 0)
    try #require(ioctl(master, UInt(0x8004_5430), &number) == 0)
    let name = "/dev/pts/\(number)"
    let slave = open(name, O_RDWR | O_NOCTTY)
    try #require(slave >= 0)
    defer { close(slave) }
    let output = open("/dev/null", O_WRONLY)
    defer { close(output) }
    let bytes = Array(typed.utf8)
    try #require(write(master, bytes, bytes.count) == bytes.count)
    var merged = InProcess.baseEnvironment()
    for (key, value) in environment { merged[key] = value }
    let status = await Kodo.run(
      arguments: arguments,
      runtime: Runtime(
        environment: merged, standardOutput: output, standardError: slave, standardInput: slave))
    // What the run wrote to the terminal (the echo of the answer included), without blocking.
    var seen: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4_096)
    let flags = fcntl(master, F_GETFL)
    _ = fcntl(master, F_SETFL, flags | O_NONBLOCK)
    while true {
      let count = read(master, &buffer, buffer.count)
      guard count > 0 else { break }
      seen += buffer[..<count]
    }
    return (status, String(decoding: seen, as: UTF8.self))
  }

  @Test(arguments: RemoveTests.wires)
  func declineDeletesNothingAndYesDeletes(_ wire: EmulatorProtocol) async throws {
    let keys = ["f-other/3", "f/1", "f/2"]
    try await RemoveTests.with(wire, keys: keys) { _, environment in
      let declined = try await Self.runOnTerminal(
        ["rm", "-r", "bkt/f"], typed: "n\n", environment: environment)
      #expect(declined.status == 0, "\(declined)")
      #expect(declined.terminal.contains("delete 2 objects under"), "\(declined)")
      #expect(declined.terminal.contains("nothing deleted"), "\(declined)")
      #expect(try await RemoveTests.keys(environment) == keys)
      let agreed = try await Self.runOnTerminal(
        ["rm", "-r", "bkt/f"], typed: "y\n", environment: environment)
      #expect(agreed.status == 0, "\(agreed)")
      #expect(try await RemoveTests.keys(environment) == ["f-other/3"])
    }
  }

  @Test(arguments: RemoveTests.wires)
  func aWholeBucketNeedsItsName(_ wire: EmulatorProtocol) async throws {
    try await RemoveTests.with(wire, keys: ["a", "b/c"]) { _, environment in
      let yes = try await Self.runOnTerminal(
        ["rm", "-r", "bkt"], typed: "y\n", environment: environment)
      #expect(yes.status == 0, "\(yes)")
      #expect(yes.terminal.contains("Type \"bkt\" to confirm"), "\(yes)")
      #expect(try await RemoveTests.keys(environment) == ["a", "b/c"])
      let named = try await Self.runOnTerminal(
        ["rm", "-r", "bkt"], typed: "bkt\n", environment: environment)
      #expect(named.status == 0, "\(named)")
      #expect(try await RemoveTests.keys(environment) == [])
    }
  }
}
