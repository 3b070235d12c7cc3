import Dispatch
import Foundation
import KodoBrowse
import StorageCore
import Synchronization

/// The one owner of the terminal: raw mode, the alternate screen, the hidden cursor, and putting
/// all of it back on every way out — `restore()`, exit (`atexit`), SIGHUP, SIGTSTP/Ctrl-Z
/// (restored while stopped, taken again on SIGCONT), crashes (SIGSEGV, SIGBUS, SIGILL,
/// SIGTRAP, SIGABRT, SIGFPE: the handler restores the terminal, puts the previous handler back
/// and re-raises, so Swift's backtrace still prints, now on the normal screen) and every other
/// signal that ends a process by default (SIGQUIT, SIGUSR1, SIGALRM …, the same way).
///
/// SIGINT and SIGTERM are the command's (`Signals` cancels the browser's task, which restores
/// the terminal on its way out).
final class Terminal: @unchecked Sendable {
  // `@unchecked`: the descriptors and sources are set in `init` and only used afterwards;
  // what changes (writing) is serialised by `lock`.
  let input: Int32
  let output: Int32
  private let ownsOutput: Bool
  private let lock = Mutex(())
  private var sources: [any DispatchSourceSignal] = []

  /// What `enter` writes: alternate screen, hidden cursor, cleared screen.
  static let enterBytes = Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[0m\u{1B}[2J".utf8)

  /// Why the browser cannot start here (exit 64), or `nil`.
  static func refusal(runtime: Runtime, pick: Bool) -> DisplayText? {
    let term = runtime.environment["TERM"] ?? ""
    if term.isEmpty || term == "dumb" {
      return
        "kodo browse needs a terminal that can draw a full screen (TERM is \(term.isEmpty ? "unset" : "dumb")); use kodo ls instead"
    }
    if isatty(runtime.standardInput) != 1 {
      return "kodo browse needs a terminal on stdin; use kodo ls in scripts"
    }
    if isatty(runtime.standardOutput) != 1 && !pick {
      return
        "kodo browse needs a terminal on stdout (with --pick, stdout may be a pipe); use kodo ls in scripts"
    }
    return nil
  }

  /// Takes the terminal: stdin for keys; stdout for the screen, or the controlling terminal
  /// when stdout is not one (`--pick` into a pipe).
  init(runtime: Runtime) throws(StorageError) {
    input = runtime.standardInput
    if isatty(runtime.standardOutput) == 1 {
      output = runtime.standardOutput
      ownsOutput = false
    } else {
      let tty = open("/dev/tty", O_WRONLY | O_CLOEXEC)
      guard tty >= 0 else {
        throw StorageError(
          .localIO, "cannot open /dev/tty to draw on: \(String(cString: strerror(errno)))")
      }
      output = tty
      ownsOutput = true
    }
    var saved = termios()
    guard tcgetattr(input, &saved) == 0 else {
      throw StorageError(
        .localIO, "cannot read the terminal's settings: \(String(cString: strerror(errno)))")
    }
    TerminalRestore.install(saved: saved, input: input, output: output)
    enterRaw()
  }

  /// Raw mode and the alternate screen.
  func enterRaw() {
    var raw = TerminalRestore.savedSettings()
    cfmakeraw(&raw)
    // Keep output post-processing off but let reads return at once with what is there.
    tcsetattr(input, TCSAFLUSH, &raw)
    write(Self.enterBytes)
    TerminalRestore.setActive(true)
  }

  /// The screen's size in cells.
  var size: Size {
    var window = winsize()
    if ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 {
      return Size(width: Int(window.ws_col), height: Int(window.ws_row))
    }
    return Size(width: 80, height: 24)
  }

  /// Writes all of `bytes` (a frame, an OSC 52); gives up on a terminal that is gone.
  @discardableResult
  func write(_ bytes: [UInt8]) -> Bool {
    lock.withLock { _ in
      bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
          guard let base = buffer.baseAddress else { return false }
          let written = Glibc.write(output, base + offset, buffer.count - offset)
          if written < 0 {
            if errno == EINTR || errno == EAGAIN { continue }
            return false
          }
          offset += written
        }
        return true
      }
    }
  }

  /// Puts the terminal back as it was (idempotent).
  func restore() {
    lock.withLock { _ in TerminalRestore.restoreNow() }
  }

  /// Leaves for good: restores, stops the signal sources, closes what it opened.
  func close() {
    restore()
    for source in sources { source.cancel() }
    sources = []
    if ownsOutput { Glibc.close(output) }
  }

  /// Calls `handler` on the main queue for SIGWINCH, SIGHUP, SIGTSTP and SIGCONT.
  func watchSignals(_ handler: @escaping @Sendable (Int32) -> Void) {
    for number in [SIGWINCH, SIGHUP, SIGTSTP, SIGCONT] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { handler(number) }
      source.resume()
      sources.append(source)
    }
  }

  /// Ctrl-Z or SIGTSTP: restore, stop, and on SIGCONT take the terminal again (the caller
  /// repaints everything).
  func suspend() {
    restore()
    signal(SIGTSTP, SIG_DFL)
    kill(getpid(), SIGTSTP)
    // Runs on after SIGCONT.
    signal(SIGTSTP, SIG_IGN)
    enterRaw()
  }
}

/// What the signal and exit handlers need, kept where a C function can reach it without
/// capturing anything, and the bytes written before any crash so restoring allocates nothing.
/// `sigaction` is both a type and a function; the alias names the type.
typealias SignalAction = sigaction

enum TerminalRestore {
  // Written before the handlers are installed and while the terminal is taken; read by the
  // handlers (async-signal-safe: plain loads, write(2), tcsetattr).
  /// The settings to restore, on the heap: a global `termios` is laid out 57 bytes long while a
  /// copy writes all 60 of C's (AddressSanitizer: a global-buffer-overflow of 3 bytes). Made
  /// when the terminal is first taken, before any handler can read it.
  nonisolated(unsafe) private static let saved: UnsafeMutablePointer<termios> = {
    let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    pointer.initialize(to: termios())
    return pointer
  }()
  nonisolated(unsafe) private static var input: Int32 = -1
  nonisolated(unsafe) private static var output: Int32 = -1
  nonisolated(unsafe) private static var active = false
  nonisolated(unsafe) private static var installed = false
  nonisolated(unsafe) private static var previous = [SignalAction](
    repeating: SignalAction(), count: 65)
  nonisolated(unsafe) private static var hasPrevious = [Bool](repeating: false, count: 65)
  /// Reset attributes, show the cursor, leave the alternate screen.
  private static let leaveBytes: [UInt8] = Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8)
  static let crashSignals = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]
  /// The other signals whose default action ends the process (SIGQUIT, as Swift's backtracer
  /// handles it, is chained to it with the terminal already back): each restores the terminal
  /// and then dies of the signal. One that was ignored when the browser started (`nohup`), or
  /// had a plain handler, is left as it was.
  static let terminatingSignals = [
    SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGSYS, SIGSTKFLT,
    SIGPWR,
  ]

  static func install(saved settings: termios, input: Int32, output: Int32) {
    saved.pointee = settings
    self.input = input
    self.output = output
    guard !installed else { return }
    installed = true
    atexit { TerminalRestore.restoreNow() }
    for number in crashSignals + terminatingSignals {
      var old = sigaction()
      sigaction(number, nil, &old)
      let leftAsItWas =
        old.sa_flags & Int32(SA_SIGINFO) == 0 && old.__sigaction_handler.sa_handler != nil
      if leftAsItWas && !crashSignals.contains(number) { continue }
      var action = sigaction()
      action.__sigaction_handler.sa_sigaction = { number, info, context in
        TerminalRestore.restoreNow()
        TerminalRestore.chain(number, info, context)
      }
      action.sa_flags = Int32(SA_SIGINFO)
      sigemptyset(&action.sa_mask)
      sigaction(number, &action, &old)
      previous[Int(number)] = old
      hasPrevious[Int(number)] = true
    }
  }

  static func savedSettings() -> termios { saved.pointee }

  static func setActive(_ value: Bool) { active = value }

  /// Restores the terminal if it is taken (async-signal-safe).
  static func restoreNow() {
    guard active else { return }
    active = false
    leaveBytes.withUnsafeBytes { buffer in
      if let base = buffer.baseAddress { _ = write(output, base, buffer.count) }
    }
    tcsetattr(input, TCSAFLUSH, saved)
  }

  /// Runs the handler that was there before (Swift's backtracer), then dies of the signal:
  /// with the default action back, the re-raised signal (or the faulting instruction, run
  /// again) ends the process with the signal's status.
  fileprivate static func chain(
    _ number: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?
  ) {
    let index = Int(number)
    if index >= 0, index < 65, hasPrevious[index],
      previous[index].sa_flags & Int32(SA_SIGINFO) != 0,
      let handler = previous[index].__sigaction_handler.sa_sigaction
    {
      handler(number, info, context)
    }
    signal(number, SIG_DFL)
    raise(number)
  }
}
