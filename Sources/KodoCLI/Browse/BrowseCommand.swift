import ArgumentParser
import Foundation
import KodoBrowse
import StorageCore
import Synchronization

struct Browse: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "browse",
    abstract: "Browse buckets and folders full-screen: Finder in the terminal.",
    discussion: """
      Opens the bucket list, or BUCKET/PREFIX/ one folder level at a time (folders first); \
      BUCKET/KEY opens the key's folder with it selected. Pages load in the background and the \
      status line says what is loaded. Keys: arrows or h j k l, Enter open (an object: a \
      preview, fetched by range), / filter, o sort, i details, Space/* mark, y copy (k key, p \
      BUCKET/KEY, u URL, by OSC 52), s/S download (s on a folder or marked entries: as get -r, \
      into the current directory), d delete (asks first; a folder as rm -r), r rename an \
      object or a folder (as mv -r; asks before replacing), u upload a local file or folder here (as put -r: a \
      folder under its own name; asks before replacing), t transfers (x cancels), : go to, R reload, ? help, q quit. Prompts \
      edit with Ctrl-A/E, arrows, Ctrl-U/K/W; Tab completes local paths. Needs a terminal \
      (TERM not dumb); honours NO_COLOR.

      With --pick, Enter on an object prints its key (--json: {"bucket","key","url"}) and \
      quits; stdout may then be a pipe. Quitting without a choice exits 1.

      Examples:
        kodo browse
        kodo browse photos/2024/
        url=$(kodo browse --pick --json photos | jq -r .url)
      """
  )

  @OptionGroup var download: DownloadOptions

  @Flag(help: "Choose an object with Enter: print its key (with --json, bucket, key and URL).")
  var pick = false

  @Option(
    help: ArgumentHelp(
      "How long copied and picked URLs last: seconds or 30m, 2h, 7d (default 1h).",
      valueName: "DURATION"))
  var expires: String?

  @Argument(
    help: ArgumentHelp(
      "Where to start: BUCKET, BUCKET/PREFIX/ or BUCKET/KEY (default: the bucket list).",
      valueName: "BUCKET[/PATH]"),
    completion: ShellCompletion.bucketPath)
  var path: String?

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func execute(_ context: Context) async throws {
    let runtime = context.runtime
    let expiry = try DurationParser.seconds(expires ?? "3600")
    if let refusal = Terminal.refusal(runtime: runtime, pick: pick) {
      Diagnostics.error(refusal)
      throw ExitCode(64)
    }
    let target = try path.map { try context.strippingScheme($0) }
    let provider = try context.provider()
    let start = try Self.startLocation(target, provider)
    let terminal = try Terminal(runtime: runtime)
    defer { terminal.close() }
    let color = (runtime.environment["NO_COLOR"] ?? "").isEmpty
    var state = State(
      location: start.location, size: terminal.size, pick: pick, color: color, select: start.select)
    state.home = runtime.environment["HOME"]
    state.insideTmux = !(runtime.environment["TMUX"] ?? "").isEmpty
    let (events, continuation) = AsyncStream.makeStream(of: BrowseEvent.self)
    let send: @Sendable (Message) -> Void = { continuation.yield(.message($0)) }
    let configured = context.configuration.domains
    let explicit = download.domain
    let runner = EffectRunner(
      provider: provider, kind: try context.providerKind(),
      domain: { DomainChoice(explicit: explicit, configured: configured[$0]) },
      toTerminal: { terminal.write($0) }, environment: runtime.environment, expires: expiry,
      send: send)
    defer { runner.cancelAll() }
    let reader = KeyReader(descriptor: terminal.input) { continuation.yield(.message(.key($0))) }
    reader.start()
    defer { reader.stop() }
    terminal.watchSignals { continuation.yield(.signal($0)) }
    // Diagnostics go to the status line while the screen is ours.
    var quiet = runtime
    quiet.diagnosticsSink = { level, text in
      send(.note((level == .error ? "error: " : level == .warning ? "warning: " : "") + text.text))
    }
    let outcome: Outcome
    do {
      outcome = try await Runtime.$current.withValue(quiet) {
        try await loop(
          &state, events: events, send: send, runner: runner, terminal: terminal,
          json: context.options.json, trace: BrowseTrace(environment: runtime.environment),
          repaint: { continuation.yield(.signal(0)) })
      }
    } catch {
      await runner.stopAll()
      throw error
    }
    // A download still running stops, its temporary files removed, before kodo exits.
    await runner.stopAll()
    terminal.close()
    switch outcome {
    case .quit(let code):
      if pick && code == 0 { throw ExitCode(1) }
      if code != 0 { throw ExitCode(code) }
    case .picked(let bucket, let key, let url):
      let out = OutputStream.standardOutput()
      if context.options.json {
        var line = JSONLine()
        line.string("bucket", bucket)
        line.string("key", key)
        line.string("url", url)
        try out.write(line)
      } else {
        try out.line(DisplayText(escaping: key))
      }
      try out.flush()
    }
  }

  enum Outcome {
    case quit(Int32)
    case picked(bucket: String, key: String, url: String?)
  }

  /// The event loop: each event updates the state, its effects start, and the screen is redrawn
  /// with only what changed.
  private func loop(
    _ state: inout State, events: AsyncStream<BrowseEvent>,
    send: @escaping @Sendable (Message) -> Void,
    runner: EffectRunner, terminal: Terminal, json: Bool, trace: BrowseTrace?,
    repaint: @escaping @Sendable () -> Void
  ) async throws -> Outcome {
    var shown: Screen?
    trace?.begin()
    for effect in state.update(.start) { runner.run(effect) }
    func draw(_ cause: String) {
      let screen = view(state)
      let bytes = diff(from: shown, to: screen)
      terminal.write(bytes)
      shown = screen
      trace?.frame(cause, bytes: bytes.count, state: state)
    }
    draw("start")
    for await event in events {
      var effects: [Effect] = []
      trace?.begin()
      switch event {
      case .message(.key(.controlZ)):
        terminal.suspend()
        shown = nil
      case .message(let message):
        effects += state.update(message)
      case .signal(let number):
        switch number {
        case SIGWINCH:
          effects += state.update(.resize(terminal.size))
          // A terminal may still be reflowing its grid when the signal arrives: paint it
          // whole once more a moment later.
          Task {
            try? await Task.sleep(for: .milliseconds(150))
            repaint()
          }
        case SIGHUP:
          terminal.close()
          TemporaryFiles.removeAll()
          Foundation.exit(129)
        case SIGTSTP:
          terminal.suspend()
          shown = nil
        default:
          shown = nil
        }
      }
      for effect in effects {
        switch effect {
        case .quit(let code): return .quit(code)
        case .pick(let bucket, let key):
          var url: String?
          if json {
            url = try? await runner.signedURL(bucket: bucket, key: key)
          }
          return .picked(bucket: bucket, key: key, url: url)
        default: runner.run(effect)
        }
      }
      switch event {
      case .message(let message): draw(BrowseTrace.kind(message))
      case .signal: draw("signal")
      }
    }
    throw CancellationError()
  }

  /// `BUCKET[/PATH]`: a path ending in `/` (or none) is a folder; else the key's folder with the
  /// key selected.
  private static func startLocation(_ path: String?, _ provider: any StorageProvider) throws -> (
    location: Location, select: String?
  ) {
    guard let path, !path.isEmpty else { return (.buckets, nil) }
    let bucket: String
    let rest: String
    if let (head, tail) = KeySegments.splitAtFirstSlash(path) {
      bucket = String(head)
      rest = String(tail)
    } else {
      bucket = path
      rest = ""
    }
    try provider.validateBucketName(bucket)
    if rest.isEmpty || KeySegments.endsWithSlash(rest) {
      return (.folder(bucket: bucket, prefix: rest), nil)
    }
    let folder = String(KeySegments.folder(of: rest))
    return (.folder(bucket: bucket, prefix: folder), rest)
  }
}

/// What the loop reacts to: the browser's messages and the terminal's signals.
enum BrowseEvent: Sendable {
  case message(Message)
  case signal(Int32)
}

/// Reads the terminal on a thread of its own (never on Swift's cooperative pool) and decodes
/// keys; a lone ESC becomes Esc when nothing follows within 30 ms.
final class KeyReader: @unchecked Sendable {
  // `@unchecked`: `stopped` is atomic; the rest is set in `init`.
  private let descriptor: Int32
  private let deliver: @Sendable (Key) -> Void
  private let stopped = Atomic<Bool>(false)

  init(descriptor: Int32, deliver: @escaping @Sendable (Key) -> Void) {
    self.descriptor = descriptor
    self.deliver = deliver
  }

  func start() {
    let thread = Thread { [self] in run() }
    thread.start()
  }

  func stop() { stopped.store(true, ordering: .relaxed) }

  private func run() {
    var decoder = KeyDecoder()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !stopped.load(ordering: .relaxed) {
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, decoder.hasPending ? 30 : 100)
      if ready == 0 {
        for key in decoder.flush() { deliver(key) }
        continue
      }
      if ready < 0 {
        if errno == EINTR { continue }
        return
      }
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 4096) }
      if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
      if count <= 0 {
        // The terminal is gone: quit rather than spin.
        deliver(.controlC)
        return
      }
      for key in decoder.feed(buffer[0..<count]) { deliver(key) }
    }
  }
}
