import Foundation
import StorageCore

/// What `ls` does with the listing `RecursiveScan` drives: each page's folders and objects
/// rendered to the output (or to the sorter), and where to resume when the listing stops early.
struct Listing {
  let provider: any StorageProvider
  let bucket: String
  let prefix: String
  let output: OutputStream
  let progress: Progress
  /// The command that resumes this listing, without `--marker`, quoted for a shell.
  let resume: DisplayText
  /// The most pages in a row without an entry before a listing is taken to be stuck: the core's
  /// bound (tests lower it to reach it quickly). Every listing of the commands and the browser
  /// keeps it.
  @TaskLocal static var maximumEmptyPages = ListPages.defaultMaximumEmptyPages
  /// `--include`/`--exclude`: which objects are shown (folders always are).
  var patterns = KeyPatterns.none
  /// `--sort`: objects go here instead of to the output, to be written when the listing ends.
  var sorter: ExternalSorter?
  /// Whether the listing stopped before its end (`--limit`).
  private(set) var stoppedEarly = false

  init(
    provider: any StorageProvider, bucket: String, prefix: String, output: OutputStream,
    progress: Progress, resume: DisplayText
  ) {
    self.provider = provider
    self.bucket = bucket
    self.prefix = prefix
    self.output = output
    self.progress = progress
    self.resume = resume
  }

  /// Lists page by page (`parallel`: that many top-level folders at once, which cannot be
  /// resumed with a marker); objects go to `held` (when given) until the level is complete, so
  /// that every folder is shown first.
  mutating func run(
    _ request: ListRequest, parallel: Int?, entryLimit: Int?, held: HeldOutput?,
    renderer: inout ListRenderer
  ) async throws {
    let progress = self.progress
    let output = self.output
    let resume = self.resume
    let scan = RecursiveScan(
      provider: provider, bucket: bucket, prefix: prefix, pageSize: request.limit,
      parallel: parallel, marker: request.marker,
      resume: { "resume with: " + resume + " --marker " + ShellQuote.quote($0) },
      delimiter: request.delimiter, entryLimit: entryLimit,
      onEmptyPages: { count in progress.emptyPages(count) },
      parallelNote: "a --parallel listing cannot be resumed with a marker; run it again")
    let patterns = self.patterns
    let sorter = self.sorter
    let position: String?
    do {
      position = try await scan.run(
        { objects, element in
          if let element { try renderer.prefixes(element.page.commonPrefixes, to: output) }
          let kept = patterns.isEmpty ? objects : objects.filter { patterns.keeps($0.key) }
          if let sorter {
            try sorter.add(kept)
          } else {
            try renderer.objects(kept, to: output, held: held)
          }
          try output.flush()
          progress.add(element?.page.entryCount ?? objects.count)
          return true
        }, atEnd: { try held?.release(to: output) })
    } catch {
      progress.clear()
      try? held?.release(to: output)
      try? output.flush()
      throw error
    }
    guard let position else { return }
    // The entry limit stopped the listing: say where the rest begins.
    stoppedEarly = true
    progress.clear()
    if renderer.mode == .json {
      var line = JSONLine()
      line.string("type", "next")
      line.string("marker", position)
      try output.write(line)
    } else {
      Diagnostics.note(
        "more entries follow; resume with: " + resume + " --marker " + ShellQuote.quote(position))
    }
  }
}
