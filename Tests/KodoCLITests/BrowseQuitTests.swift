import Foundation
import KodoBrowse
import KodoTestSupport
import StorageCore
import Synchronization
import Testing

@testable import KodoCLI

/// What quitting the browser waits for: the transfers and writes it cancelled (so they clean up),
/// never a read still in flight.
@Suite("Browser quitting")
struct BrowseQuitTests {
  /// A provider whose listing answers only once the test opens the gate, cancelled or not: I/O in
  /// flight that does not end the moment it is cancelled (libcurl, for one, notices a cancel only
  /// at its next progress callback, up to a second later).
  final class HeldListing: StorageProvider {
    private struct Gate {
      var open = false
      var entered = 0
      var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let gate = Mutex(Gate())

    var serviceName: String { "Held" }
    var entered: Int { gate.withLock { $0.entered } }
    var isOpen: Bool { gate.withLock { $0.open } }

    func open() {
      let waiting = gate.withLock { gate in
        gate.open = true
        defer { gate.waiting.removeAll() }
        return gate.waiting
      }
      for continuation in waiting { continuation.resume() }
    }

    func listPage(_ request: ListRequest) async throws(StorageError) -> ListPage {
      await withCheckedContinuation { continuation in
        let now = gate.withLock { gate in
          gate.entered += 1
          if !gate.open { gate.waiting.append(continuation) }
          return gate.open
        }
        if now { continuation.resume() }
      }
      return ListPage()
    }

    func validateBucketName(_ name: String) throws(StorageError) {}
    func buckets() async throws(StorageError) -> [Bucket] { throw Self.unused }
    func stat(bucket: String, key: String) async throws(StorageError) -> ObjectDetails {
      throw Self.unused
    }
    func linkSigner(bucket: String, domain: DomainChoice, signed: Bool) async throws(StorageError)
      -> LinkSigner
    { throw Self.unused }
    func download(_ request: DownloadRequest, to writer: DownloadWriter) async throws(StorageError)
      -> DownloadResult
    { throw Self.unused }
    func integrityCheck(for details: ObjectDetails) -> IntegrityCheck? { nil }

    static let unused = StorageError(.invalidInput, "not used in this test")
  }

  /// Polls `condition` every few milliseconds for at most `Patience.bound`; whether it came true.
  static func poll(_ condition: () -> Bool) async -> Bool {
    let deadline = Patience.deadline
    while !condition() {
      if ContinuousClock.now > deadline { return false }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return true
  }

  @Test func quittingDoesNotWaitForAListingInFlight() async throws {
    let provider = HeldListing()
    let runner = EffectRunner(
      provider: provider, kind: ProviderRegistry.standard, domain: { _ in DomainChoice() },
      toTerminal: { _ in }, environment: [:], expires: 3600, send: { _ in })
    runner.run(.listPage(id: 1, bucket: "photos", prefix: "", marker: nil))
    #expect(await Self.poll { provider.entered == 1 })

    let stopped = Atomic<Bool>(false)
    let quit = Task {
      await runner.stopAll()
      stopped.store(true, ordering: .relaxed)
      // Whether the listing was still held back when quitting ended.
      return !provider.isOpen
    }
    // The gate opens only when quitting is done or after a generous bound, so a quit that waits
    // for the listing fails here rather than hanging.
    _ = await Self.poll { stopped.load(ordering: .relaxed) }
    provider.open()
    #expect(await quit.value, "quitting waited for the listing's answer")
  }
}
