import ArgumentParser
import Foundation
import KodoCore
import StorageCore

struct List: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "ls",
    abstract: "List a bucket one folder level at a time, folders first, or recursively with -r.",
    discussion: """
      Folders (common prefixes) are listed before the objects of each page. With --limit the \
      listing stops after N entries and says where to resume: on stderr as "--marker TOKEN", \
      or as a final {"type":"next","marker":…} line with --json.

      Examples:
        kodo ls photos                      # the top level of bucket photos
        kodo ls photos/2024/                # one level under photos/2024/
        kodo ls -r --json logs/2024-06/ | jq -r .key
        kodo ls -r --limit 1000 logs        # the first 1000 objects, then the resume marker
        kodo ls -r --marker TOKEN logs      # resume exactly there
        kodo ls -r -0 logs | xargs -0 -n1 echo
      """,
    aliases: ["list"]
  )

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  @Argument(
    help: ArgumentHelp(
      "The bucket and an optional key prefix (default: the configured bucket).",
      valueName: "BUCKET[/PREFIX]"))
  var target: String?

  @Flag(name: .shortAndLong, help: "List every object under the prefix, not one level.")
  var recursive = false

  @Flag(name: .customShort("l"), help: "Long form: also the storage class, hash and MIME type.")
  var long = false

  @Flag(help: "End with the number of folders and objects and their total size.")
  var summarize = false

  @Option(
    help: ArgumentHelp(
      "Stop after N entries (folders and objects both count) and print where to resume.",
      valueName: "N"))
  var limit: Int?

  @Option(
    help: ArgumentHelp(
      "Resume a listing at the marker a previous --limit printed.", valueName: "TOKEN"))
  var marker: String?

  @Option(
    name: .customLong("page-size"),
    help: ArgumentHelp("Entries per request, 1-1000.", valueName: "N"))
  var pageSize: Int = 1000

  @Flag(
    name: .customShort("0"),
    help: "Print full keys (folders included) separated by NUL, nothing else.")
  var nulSeparated = false

  @Option(
    help: ArgumentHelp(
      "With -r: list up to N top-level folders at once (same output, same order).", valueName: "N"))
  var parallel: Int?

  func validate() throws {
    guard (1...1000).contains(pageSize) else {
      throw ValidationError("--page-size must be between 1 and 1000")
    }
    if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    if let parallel {
      guard recursive else { throw ValidationError("--parallel needs -r/--recursive") }
      guard (1...64).contains(parallel) else {
        throw ValidationError("--parallel must be between 1 and 64")
      }
      guard limit == nil, marker == nil else {
        throw ValidationError("--parallel cannot be combined with --limit or --marker")
      }
    }
    if nulSeparated && (global.json || long || summarize) {
      throw ValidationError(
        "-0 prints keys only; it cannot be combined with --json, -l or --summarize")
    }
  }

  func execute(_ context: Context) async throws {
    let json = context.options.json
    if nulSeparated && json {
      throw ValidationError("-0 prints keys only; it cannot be combined with --json")
    }
    let (bucket, prefix) = try splitTarget(context)
    let client = try context.client()
    let output = OutputStream(fileDescriptor: 1)
    var renderer = ListRenderer(
      mode: json ? .json : nulSeparated ? .nul : .text, long: long, terminal: output.isTerminal,
      relativeTo: recursive ? nil : prefix,
      palette: Palette(terminal: output.isTerminal, environment: context.environment))
    let progress = Progress(enabled: recursive && !output.isTerminal && Diagnostics.isTerminal)
    defer { progress.clear() }

    if let parallel {
      let listing = ParallelListing(
        fetch: client.pageFetcher, bucket: bucket, prefix: prefix, pageSize: pageSize,
        concurrency: parallel)
      Signals.setResumeHint(
        "interrupted; a --parallel listing cannot be resumed with a marker, run it again")
      do {
        try await listing.run { objects in
          try output.append { renderer.objects(objects, into: &$0) }
          try output.flush()
          progress.add(objects.count)
        }
      } catch let error as StorageError where error.kind == .cancelled {
        Signals.setResumeHint(nil)
        progress.clear()
        Diagnostics.note(
          "interrupted; a --parallel listing cannot be resumed with a marker, run it again")
        throw error
      }
      try finishOutput(output, renderer: &renderer, progress: progress)
      return
    }

    // `currentMarker` is where the output stands: the marker of the first entry not yet written.
    var currentMarker = marker ?? ""
    var remaining = limit
    let command = resumeCommand(bucket: bucket, prefix: prefix)
    func resume(from marker: String) -> String {
      "resume with: \(command) --marker \(ShellQuote.quote(marker))"
    }
    let delimiter = recursive ? nil : "/"
    @Sendable func fetch(marker: String, limit: Int) async throws(StorageError) -> ListPage {
      try await client.listPage(
        bucket: bucket, prefix: prefix, delimiter: delimiter, marker: marker, limit: limit)
    }
    do {
      Signals.setResumeHint(
        currentMarker.isEmpty ? nil : "interrupted; " + resume(from: currentMarker))
      var page = try await fetch(marker: currentMarker, limit: min(pageSize, remaining ?? pageSize))
      while true {
        let count = page.commonPrefixes.count + page.items.count
        let left = remaining.map { $0 - count }
        let reachedLimit = left.map { $0 <= 0 } ?? false
        let more = !page.marker.isEmpty && !reachedLimit
        let nextMarker = page.marker
        let nextLimit = min(pageSize, left ?? pageSize)
        // The next page is fetched while this one is written: the server's time and ours overlap.
        async let prefetched: ListPage? =
          more ? fetch(marker: nextMarker, limit: nextLimit) : nil
        try output.append { buffer in
          renderer.prefixes(page.commonPrefixes, into: &buffer)
          renderer.objects(page.items, into: &buffer)
        }
        try output.flush()
        progress.add(count)
        if page.marker.isEmpty { break }
        currentMarker = page.marker
        remaining = left
        if reachedLimit {
          progress.clear()
          if json {
            var line = JSONLine()
            line.string("type", "next")
            line.string("marker", currentMarker)
            try output.write(bytes: line.finish())
          } else {
            Diagnostics.note("more entries follow; " + resume(from: currentMarker))
          }
          break
        }
        Signals.setResumeHint("interrupted; " + resume(from: currentMarker))
        guard let next = try await prefetched else { break }
        page = next
      }
    } catch let anyError {
      // Only StorageError is thrown above; `async let` merely forgets the type.
      guard let error = anyError as? StorageError, error.kind != .outputClosed else {
        throw anyError
      }
      Signals.setResumeHint(nil)
      progress.clear()
      try? output.flush()
      if error.kind == .cancelled {
        if !currentMarker.isEmpty {
          Diagnostics.note("interrupted; " + resume(from: currentMarker))
        }
        throw error
      }
      Diagnostics.error(error.description)
      if !currentMarker.isEmpty {
        Diagnostics.note("the listing stopped; " + resume(from: currentMarker))
      }
      throw ExitCode(error.exitCode)
    }
    try finishOutput(output, renderer: &renderer, progress: progress)
  }

  private func finishOutput(
    _ output: OutputStream, renderer: inout ListRenderer, progress: Progress
  ) throws {
    progress.clear()
    if summarize {
      try output.append { renderer.summary(into: &$0) }
    }
    try output.flush()
  }

  private func splitTarget(_ context: Context) throws -> (String, String) {
    guard let target, !target.isEmpty else { return (try context.bucket(nil), "") }
    if let slash = target.firstIndex(of: "/") {
      return (String(target[..<slash]), String(target[target.index(after: slash)...]))
    }
    return (target, "")
  }

  private func resumeCommand(bucket: String, prefix: String) -> String {
    var parts = ["kodo", "ls"]
    if recursive { parts.append("-r") }
    let target = prefix.isEmpty ? bucket : bucket + "/" + prefix
    parts.append(ShellQuote.quote(target))
    return parts.joined(separator: " ")
  }
}

/// Quoting for commands we print for people to paste.
enum ShellQuote {
  static func quote(_ text: String) -> String {
    let safe = text.unicodeScalars.allSatisfy {
      ($0.properties.isAlphabetic || ("0"..."9").contains($0)
        || "-_./:@%+=,".unicodeScalars.contains($0))
        && !DisplayText.isUnsafe($0)
    }
    if safe && !text.isEmpty { return text }
    return "'" + DisplayText.escaped(text).replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}

/// Turns listing entries into output bytes for one of the three formats.
struct ListRenderer {
  enum Mode { case text, json, nul }

  let mode: Mode
  let long: Bool
  let terminal: Bool
  let relativeTo: String?
  let palette: Palette
  var folderCount: Int64 = 0
  var objectCount: Int64 = 0
  var totalSize: Int64 = 0

  init(mode: Mode, long: Bool, terminal: Bool, relativeTo: String?, palette: Palette) {
    self.mode = mode
    self.long = long
    self.terminal = terminal
    self.relativeTo = relativeTo
    self.palette = palette
  }

  private func displayName(_ key: String) -> String {
    var name = Substring(key)
    if let relativeTo, !relativeTo.isEmpty, key.hasPrefix(relativeTo), key.count > relativeTo.count
    {
      name = key.dropFirst(relativeTo.count)
    }
    return DisplayText.escaped(name)
  }

  private var sizeWidth: Int { terminal ? 10 : 14 }

  mutating func prefixes(_ prefixes: [String], into buffer: inout [UInt8]) {
    folderCount += Int64(prefixes.count)
    for prefix in prefixes {
      switch mode {
      case .json:
        JSONLine.append(to: &buffer) { line in
          line.string("type", "prefix")
          line.string("key", prefix)
        }
      case .nul:
        buffer.append(contentsOf: prefix.utf8)
        buffer.append(0)
      case .text:
        var text = Human.padLeft("DIR", sizeWidth) + "  " + String(repeating: " ", count: 16) + "  "
        if long { text += String(repeating: " ", count: 22 + 30) }
        text += palette.folder(displayName(prefix))
        buffer.append(contentsOf: text.utf8)
        buffer.append(UInt8(ascii: "\n"))
      }
    }
  }

  mutating func objects(_ objects: [ObjectEntry], into buffer: inout [UInt8]) {
    objectCount += Int64(objects.count)
    for object in objects {
      // Sizes are the server's numbers: an absurd total saturates instead of crashing.
      let (sum, overflow) = totalSize.addingReportingOverflow(object.size)
      totalSize = overflow ? (object.size < 0 ? .min : .max) : sum
      switch mode {
      case .json:
        JSONLine.append(to: &buffer) { line in
          line.string("type", "object")
          object.appendJSONFields(to: &line)
        }
      case .nul:
        buffer.append(contentsOf: object.key.utf8)
        buffer.append(0)
      case .text:
        let size = terminal ? Human.size(object.size) : String(object.size)
        var text = Human.padLeft(size, sizeWidth) + "  "
        text += Human.localTime(KodoTime.unixSeconds(hundredNanoseconds: object.putTime)) + "  "
        if long {
          var storage = object.storageClass.name
          if object.status == .disabled { storage += ",disabled" }
          text += Human.padRight(storage, 20) + "  " + Human.padRight(object.hash, 28) + "  "
          text += Human.padRight(object.mimeType, 24) + "  "
        }
        text += displayName(object.key)
        buffer.append(contentsOf: text.utf8)
        buffer.append(UInt8(ascii: "\n"))
      }
    }
  }

  mutating func summary(into buffer: inout [UInt8]) {
    switch mode {
    case .json:
      JSONLine.append(to: &buffer) { line in
        line.string("type", "summary")
        line.int("prefixes", folderCount)
        line.int("objects", objectCount)
        line.int("size", totalSize)
      }
    case .nul:
      break
    case .text:
      let text =
        "\(folderCount) folder\(folderCount == 1 ? "" : "s"), \(objectCount) object\(objectCount == 1 ? "" : "s"), "
        + "\(totalSize) bytes (\(Human.size(totalSize)))\n"
      buffer.append(contentsOf: palette.bold(text).utf8)
    }
  }
}

/// "listed 120,000 entries (8,500/s)" redrawn on stderr while a long listing goes to a file.
final class Progress: @unchecked Sendable {
  // Used from the listing loop only.
  private let enabled: Bool
  private var count = 0
  private let started = ContinuousClock.now
  private var lastDraw = ContinuousClock.now
  private var drawn = false

  init(enabled: Bool) { self.enabled = enabled }

  func add(_ entries: Int) {
    guard enabled else { return }
    count += entries
    let now = ContinuousClock.now
    guard now - lastDraw > .milliseconds(250) else { return }
    lastDraw = now
    let elapsed =
      Double((now - started).components.seconds) + Double((now - started).components.attoseconds)
      / 1e18
    let rate = elapsed > 0 ? Int(Double(count) / elapsed) : 0
    Diagnostics.raw("\r\u{1B}[Klisted \(count) entries (\(rate)/s)")
    drawn = true
  }

  func clear() {
    guard drawn else { return }
    drawn = false
    Diagnostics.raw("\r\u{1B}[K")
  }
}
