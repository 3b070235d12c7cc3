import Foundation
import StorageCore
import Synchronization

/// The loops of `ls`: pages from `ListPages` (the next one fetched while the current one is
/// written), or batches from `ParallelListing`, rendered to the output; where to resume when
/// the listing stops early.
struct Listing {
  let provider: any StorageProvider
  let bucket: String
  let prefix: String
  let output: OutputStream
  let progress: Progress
  /// The command that resumes this listing, without `--marker`.
  let resume: [String]
  /// Whether the listing stopped before its end (`--limit`).
  private(set) var stoppedEarly = false

  init(
    provider: any StorageProvider, bucket: String, prefix: String, output: OutputStream,
    progress: Progress, resume: [String]
  ) {
    self.provider = provider
    self.bucket = bucket
    self.prefix = prefix
    self.output = output
    self.progress = progress
    self.resume = resume
  }

  /// Lists page by page; objects go to `held` (when given) until the level is complete, so that
  /// every folder is shown first.
  mutating func sequential(
    _ request: ListRequest, entryLimit: Int?, held: HeldOutput?, renderer: inout ListRenderer
  ) async throws {
    let progress = self.progress
    let pages = ListPages(
      request, fetch: provider.pageFetcher, entryLimit: entryLimit,
      onEmptyPages: { count in progress.emptyPages(count) })
    // `position` is where the output stands: the marker of the first entry not yet written.
    var position = request.marker
    Signals.setResumeHint(position.map { "interrupted; " + resumeNote(from: $0) })
    do {
      // `ListPages` is the one read-ahead: the next page's request is on its way while this page
      // is decoded and written (bench/NOTES.md says why there is no second layer here).
      for try await element in pages {
        let page = element.page
        try output.append { renderer.prefixes(page.commonPrefixes, into: &$0) }
        if let held {
          try held.hold { renderer.objects(page.items, into: &$0) }
        } else {
          try output.append { renderer.objects(page.items, into: &$0) }
        }
        try output.flush()
        progress.add(page.entryCount)
        position = page.nextMarker
        Signals.setResumeHint(position.map { "interrupted; " + resumeNote(from: $0) })
      }
      // A listing cancelled after its last page still stops as interrupted.
      if Task.isCancelled { throw StorageError(.cancelled, "cancelled") }
      try held?.release(to: output)
    } catch {
      Signals.setResumeHint(nil)
      progress.clear()
      try? held?.release(to: output)
      try? output.flush()
      guard let failure = error as? StorageError else { throw error }
      throw failed(failure, resumingFrom: position)
    }
    Signals.setResumeHint(nil)
    guard let position else { return }
    // The entry limit stopped the listing: say where the rest begins.
    stoppedEarly = true
    progress.clear()
    if renderer.mode == .json {
      var line = JSONLine()
      line.string("type", "next")
      line.string("marker", position)
      try output.write(bytes: line.finish())
    } else {
      Diagnostics.note("more entries follow; " + resumeNote(from: position))
    }
  }

  /// Lists the top-level folders of the prefix concurrently (`--parallel`).
  func parallel(concurrency: Int, pageSize: Int, renderer: inout ListRenderer) async throws {
    let listing = ParallelListing(
      fetch: provider.pageFetcher, bucket: bucket, prefix: prefix, pageSize: pageSize,
      concurrency: concurrency)
    let cannotResume: DisplayText =
      "a --parallel listing cannot be resumed with a marker; run it again"
    Signals.setResumeHint("interrupted; " + cannotResume)
    defer { Signals.setResumeHint(nil) }
    do {
      try await listing.run { objects in
        try output.append { renderer.objects(objects, into: &$0) }
        try output.flush()
        progress.add(objects.count)
      }
    } catch let error as StorageError {
      progress.clear()
      guard error.kind != .outputClosed else { throw error }
      let said: DisplayText = error.kind == .cancelled ? "interrupted; " : "the listing stopped; "
      throw CommandFailure(error: error, notes: [said + cannotResume])
    }
  }

  /// The failure with the note that says where to resume, unless resuming cannot help.
  private func failed(_ error: StorageError, resumingFrom position: String?) -> any Error {
    guard error.kind != .outputClosed else { return error }
    guard let position, error.hint != .restartListing else {
      return CommandFailure(error: error, notes: [])
    }
    let said: DisplayText = error.kind == .cancelled ? "interrupted; " : "the listing stopped; "
    return CommandFailure(error: error, notes: [said + resumeNote(from: position)])
  }

  private func resumeNote(from marker: String) -> DisplayText {
    let words = (resume + ["--marker", marker]).map(ShellQuote.quote)
    return "resume with: " + DisplayText.joined(words, separator: " ")
  }
}

/// Quoting for commands we print for people to paste.
enum ShellQuote {
  static func quote(_ text: String) -> DisplayText {
    let safe = text.unicodeScalars.allSatisfy {
      ($0.properties.isAlphabetic || ("0"..."9").contains($0)
        || "-_./:@%+=,".unicodeScalars.contains($0))
        && !DisplayText.isUnsafe($0)
    }
    if safe && !text.isEmpty { return DisplayText(escaping: text) }
    return "'\(text.replacingOccurrences(of: "'", with: "'\\''"))'"
  }
}

/// "listed 120,000 entries (8,500/s)" redrawn on stderr while a long listing goes to a file or a
/// pipe; told about long runs of empty pages too, so that a listing never looks hung.
final class Progress: Sendable {
  private let enabled: Bool
  private let started = ContinuousClock.now
  private let state = Mutex(State())

  private struct State {
    var count = 0
    var lastDraw = ContinuousClock.now
    var drawn = false
  }

  init(enabled: Bool) { self.enabled = enabled }

  func add(_ entries: Int) {
    guard enabled else { return }
    let line = state.withLock { state -> DisplayText? in
      state.count += entries
      let now = ContinuousClock.now
      guard now - state.lastDraw > .milliseconds(250) else { return nil }
      state.lastDraw = now
      state.drawn = true
      let elapsed = Self.seconds(now - started)
      let rate = elapsed > 0 ? Int(Double(state.count) / elapsed) : 0
      return "listed \(state.count) entries (\(rate)/s)"
    }
    if let line { Diagnostics.progress("\r\u{1B}[K" + line) }
  }

  /// A run of `count` empty pages so far: shown every 100 pages, on a terminal or not.
  func emptyPages(_ count: Int) {
    guard count % 100 == 0 else { return }
    clear()
    Diagnostics.note("\(count) pages in a row brought no entry; still listing")
  }

  func clear() {
    let drawn = state.withLock { state -> Bool in
      defer { state.drawn = false }
      return state.drawn
    }
    if drawn { Diagnostics.progress("\r\u{1B}[K") }
  }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }
}
