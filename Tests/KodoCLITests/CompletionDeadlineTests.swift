import Foundation
import KodoEmulator
import KodoTestSupport
import Testing

/// A shell completion never keeps the shell waiting: when the service does not answer, it ends
/// at its deadline and lists nothing, with no error.
@Suite struct CompletionDeadlineTests {
  @Test(arguments: RemoveTests.wires)
  func aServiceThatNeverAnswersEndsTheCompletionEmpty(_ wire: EmulatorProtocol) async throws {
    try await RemoveTests.with(wire, keys: ["logs/a.txt", "logs/b.txt"]) {
      emulator, environment in
      let request = CompletionTests.request(
        ["stat"], "positional@0", ["kodo", "stat", "bkt", "logs/"])
      // While the service answers, the keys are listed.
      let listed = try await InProcess.run(request, environment: environment)
      #expect(listed.lines == ["logs/a.txt", "logs/b.txt"], "\(listed)")
      // Once no listing is answered, the completion still ends: empty, and quiet.
      emulator.server.scheduleFault(EmulatorFault(endpoint: .list, mode: .hang, count: 1 << 30))
      let hung = try await InProcess.run(
        request, environment: environment, completionDeadline: .milliseconds(300))
      #expect(hung.status == 0, "\(hung)")
      #expect(hung.lines == [], "\(hung)")
      #expect(hung.stderr.isEmpty, "\(hung)")
      _ = emulator.server.clearFaults()
    }
  }
}
