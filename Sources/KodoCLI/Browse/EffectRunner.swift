import Foundation
import KodoBrowse
import StorageCore
import Synchronization
import SystemPackage

/// Runs the browser's effects against the provider, each in a task of its own, and sends the
/// results back as messages carrying the request's id. `cancel` cancels the task; a result that
/// still arrives is dropped by `update`, which no longer waits for that id.
///
/// Quitting (`stopAll`) cancels every task but waits only for those that leave something behind
/// unless they end properly (`Ending.cleansUp`: downloads remove their temporary files, uploads
/// abort their parts, deletes and moves stop between requests). A read (a listing, a stat, a
/// preview's range, a count) leaves nothing, so quitting never waits for its answer to arrive or
/// for the transport to notice the cancel.
final class EffectRunner: Sendable {
  let provider: any StorageProvider
  /// The provider's factory (what `put` and `get -r` ask of it).
  let kind: ProviderKind
  let domain: @Sendable (String) -> DomainChoice
  /// Writes bytes to the terminal (the clipboard's escape sequence).
  let toTerminal: @Sendable ([UInt8]) -> Void
  let send: @Sendable (Message) -> Void
  let environment: [String: String]
  /// How long copied URLs last, in seconds.
  let expires: Int64
  private let tasks = Mutex([Int: Running]())
  /// Each folder's place in its listing (the shared paging driver's rules).
  private let paging = BrowsePaging()

  init(
    provider: any StorageProvider, kind: ProviderKind,
    domain: @escaping @Sendable (String) -> DomainChoice,
    toTerminal: @escaping @Sendable ([UInt8]) -> Void, environment: [String: String],
    expires: Int64,
    send: @escaping @Sendable (Message) -> Void
  ) {
    self.provider = provider
    self.kind = kind
    self.domain = domain
    self.toTerminal = toTerminal
    self.environment = environment
    self.expires = expires
    self.send = send
  }

  /// Starts an effect (`quit` and `pick` are the loop's).
  func run(_ effect: Effect) {
    switch effect {
    case .listBuckets(let id):
      start(id) { [provider, send] in
        let result = await Self.result { () async throws(StorageError) in
          try await provider.buckets()
        }
        if Task.isCancelled { return }
        send(.bucketsLoaded(id: id, result))
      }
    case .listPage(let id, let bucket, let prefix, let marker):
      start(id) { [self] in
        let result = await paging.nextPage(
          from: provider, bucket: bucket, prefix: prefix, marker: marker)
        if Task.isCancelled { return }
        send(.pageLoaded(id: id, result))
      }
    case .stat(let id, let bucket, let key):
      start(id) { [provider, send] in
        // Holding j down must not send a stat per row: wait until the cursor rests.
        try? await Task.sleep(for: .milliseconds(150))
        if Task.isCancelled { return }
        let result = await Self.result { () async throws(StorageError) in
          try await provider.stat(bucket: bucket, key: key)
        }
        if Task.isCancelled { return }
        send(.statLoaded(id: id, result))
      }
    case .cancel(let id):
      let running = tasks.withLock { $0.removeValue(forKey: id) }
      running?.task.cancel()
    case .copy(let what, let text):
      copy(text)
      send(.copied(what: what, .success(text)))
    case .copyURL(let bucket, let key):
      Task { [self] in
        let result = await Self.result { () async throws(StorageError) in
          try await self.signedURL(bucket: bucket, key: key)
        }
        if case .success(let url) = result { copy(url) }
        send(.copied(what: "download URL", result))
      }
    case .download(let id, let bucket, let key, let size, let path):
      start(id, .cleansUp) { [self] in
        await download(id: id, bucket: bucket, key: key, size: size, path: path)
      }
    case .downloadTree(let id, let bucket, let base, let entries):
      start(id, .cleansUp) { [self] in
        await downloadTree(id: id, bucket: bucket, base: base, entries: entries)
      }
    case .fetchRange(let id, let bucket, let key, let range):
      start(id) { [self, send] in
        let result = await Self.result { () async throws(StorageError) in
          try await self.fetchRange(bucket: bucket, key: key, range: range)
        }
        if Task.isCancelled { return }
        send(.rangeLoaded(id: id, result))
      }
    case .countObjects(let id, let bucket, let folders):
      start(id) { [self] in await count(id: id, bucket: bucket, folders: folders) }
    case .delete(let id, let bucket, let objects, let folders):
      start(id, .cleansUp) { [self] in
        await delete(id: id, bucket: bucket, objects: objects, folders: folders)
      }
    case .move(let id, let bucket, let from, let to, let replace):
      start(id, .cleansUp) { [self] in
        await move(id: id, bucket: bucket, from: from, to: to, replace: replace)
      }
    case .upload(let id, let bucket, let plan, let replace):
      start(id, .cleansUp) { [self] in
        await upload(id: id, bucket: bucket, plan: plan, replace: replace)
      }
    case .listLocal(let id, let directory):
      let send = self.send
      LocalListing.start(directory) { send(.localListed(id: id, $0)) }
    case .pick, .quit:
      break
    }
  }

  /// Whether quitting waits for an effect's task to end.
  enum Ending {
    /// A read: cancelled and left to end on its own.
    case abandons
    /// A transfer or a write: cancelled, then waited for, so that what it leaves is cleaned up.
    case cleansUp
  }

  private struct Running {
    let task: Task<Void, Never>
    let ending: Ending
  }

  /// Cancels everything still running.
  func cancelAll() {
    let running = tasks.withLock { tasks in
      defer { tasks.removeAll() }
      return Array(tasks.values)
    }
    for each in running { each.task.cancel() }
  }

  /// Cancels everything still running and waits for the transfers and writes to end (see
  /// `Ending`), so that a download has removed its temporary files before the browser exits;
  /// reads are not waited for.
  func stopAll() async {
    let running = tasks.withLock { tasks in
      defer { tasks.removeAll() }
      return Array(tasks.values)
    }
    for each in running { each.task.cancel() }
    for each in running where each.ending == .cleansUp { await each.task.value }
  }

  private func start(
    _ id: Int, _ ending: Ending = .abandons, _ body: @escaping @Sendable () async -> Void
  ) {
    let task = Task {
      await body()
      _ = self.tasks.withLock { $0.removeValue(forKey: id) }
    }
    tasks.withLock { $0[id] = Running(task: task, ending: ending) }
  }

  static func result<T: Sendable>(
    _ body: () async throws(StorageError) -> T
  ) async -> Result<T, Failure> {
    do {
      return .success(try await body())
    } catch {
      return .failure(Failure(error.description))
    }
  }

  /// A download URL for the key, signed to last `expires` seconds.
  func signedURL(bucket: String, key: String) async throws(StorageError) -> String {
    let signer = try await provider.linkSigner(bucket: bucket, domain: domain(bucket), signed: true)
    var lifetime = expires
    if let maximum = signer.maximumLifetime { lifetime = min(lifetime, maximum) }
    return try signer.url(key, signer.now() + lifetime)
  }

  /// OSC 52 to the terminal; inside tmux also wrapped for passthrough, so it reaches the outer
  /// terminal whether tmux's `set-clipboard` or `allow-passthrough` is on.
  func copy(_ text: String) {
    let encoded = Data(text.utf8).base64EncodedString()
    let sequence = "\u{1B}]52;c;" + encoded + "\u{1B}\\"
    var bytes = Array(sequence.utf8)
    if let tmux = environment["TMUX"], !tmux.isEmpty {
      let doubled = sequence.replacingOccurrences(of: "\u{1B}", with: "\u{1B}\u{1B}")
      bytes += Array(("\u{1B}Ptmux;" + doubled + "\u{1B}\\").utf8)
    }
    toTerminal(bytes)
  }

  /// The same safe file handling as `kodo get`: a new temporary file next to the destination,
  /// checked for size and hash, then moved into place without replacing anything there.
  private func download(id: Int, bucket: String, key: String, size: Int64, path: String?) async {
    let name = DownloadFile.defaultName(for: key) ?? "download"
    let destination: FilePath
    if let path, !path.isEmpty {
      let given = FilePath(path)
      destination = DownloadFile.isDirectory(given) ? given.appending(name) : given
    } else {
      guard let defaultName = DownloadFile.defaultName(for: key) else {
        send(
          .downloadFinished(
            id: id, name: key, .failure(Failure("the key gives no file name; use S"))))
        return
      }
      destination = FilePath(defaultName)
    }
    let shown = destination.lastComponent?.string ?? name
    // Progress and the final message go out under one lock, so no progress follows the end.
    let finished = Latch()
    let send = self.send
    let result = await Self.result { () async throws(StorageError) -> String in
      if DownloadFile.exists(destination) {
        throw StorageError(
          .invalidInput, "\(DisplayText(quoting: destination.string)) exists; not replaced")
      }
      let details = try await provider.stat(bucket: bucket, key: key)
      let total = details.object.size
      _ = try await DownloadFile.fetch(
        DownloadRequest(bucket: bucket, key: key, domain: domain(bucket), expectedSize: total),
        from: provider, to: destination, check: provider.integrityCheck(for: details),
        replacing: false,
        mismatch: { check, digest in check.mismatch(digest) },
        progress: { descriptor in
          let started = ContinuousClock.now
          return Task {
            while !Task.isCancelled {
              let offset = Int64(lseek(descriptor, 0, SEEK_CUR))
              let elapsed = ContinuousClock.now - started
              let seconds =
                Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
              finished.value.withLock { done in
                if !done {
                  send(
                    .downloadProgress(
                      id: id, name: shown, bytes: max(0, offset), total: total, seconds: seconds))
                }
              }
              try? await Task.sleep(for: .milliseconds(200))
            }
          }
        })
      return destination.string + " (\(total) bytes)"
    }
    finished.value.withLock { done in
      done = true
      send(.downloadFinished(id: id, name: shown, result))
    }
  }
}

/// A flag shared by a download's progress task and its end.
private final class Latch: Sendable {
  let value = Mutex(false)
}
