public import Foundation

/// A detached tmux session (a server of its own on a unique socket, no user config) running
/// one shell script, for end-to-end tests of full-screen programs: keys go in with
/// `send-keys`, the screen comes out with `capture-pane`. Waits poll the screen with generous
/// bounds; nothing sleeps for a fixed time.
public final class TmuxSession: @unchecked Sendable {
  // Immutable after init.
  public let socket: String
  /// The directory the script runs in (and writes `exit`, `stty`, `pid` into).
  public let directory: String
  private let shell = CLIRunner("kodo")

  /// Why the tests cannot run: tmux is missing (`make deps` installs it).
  public struct Missing: Error, CustomStringConvertible {
    public var description: String { "tmux is not installed; run make deps (it installs tmux)" }
  }

  /// Starts `command` (a shell command line, run in `directory` with `environment`) in a
  /// `width`×`height` session. After it exits the script records its status in `exit` and the
  /// terminal's settings (`stty -a`) in `stty`, then waits to be killed.
  public init(
    command: String, environment: [String: String], width: Int = 100, height: Int = 30
  ) async throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else { throw Missing() }
    socket = "kodo-test-\(UUID().uuidString)"
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(socket).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var script = "cd \(Self.quote(directory))\n"
    for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
      script += "export \(name)=\(Self.quote(value))\n"
    }
    script += "sh -c 'echo $$ > pid; exec \"$0\" \"$@\"' \(command)\n"
    // `stty` first: a test reads it once `exit` appears.
    script +=
      "status=$?\nstty -a > stty\necho $status > exit.tmp; mv exit.tmp exit\n"
    // The pane stays (for the test to look at the screen and the terminal) until the session
    // is dropped and writes `done`, at most ten minutes; then tmux, its last pane gone, exits.
    script += "i=0; while [ ! -e done ] && [ $i -lt 3000 ]; do sleep 0.2; i=$((i+1)); done\n"
    try script.write(toFile: directory + "/run.sh", atomically: true, encoding: .utf8)
    let result = try await tmux(
      "-f /dev/null new-session -d -s main -x \(width) -y \(height) 'sh run.sh'"
        + " \\; set -g escape-time 0 \\; set -g set-clipboard on"
        // The server outlives this command: it must not hold the runner's pipes open.
        + " < /dev/null > /dev/null 2> tmux.err",
      cwd: directory)
    guard result.status == 0 else { throw TmuxFailure(message: result.description) }
    open = true
  }

  /// Whether the server still runs (ended, with everything in it, when the session goes away).
  private var open = false

  deinit {
    guard open else { return }
    _ = FileManager.default.createFile(atPath: directory + "/done", contents: nil)
  }

  struct TmuxFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { "tmux failed: \(message)" }
  }

  public static func quote(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  @discardableResult
  func tmux(_ arguments: String, cwd: String? = nil) async throws -> CLIRunner.Result {
    // The tmux server outlives this command and passes its descriptors on to the pane: the
    // shell's inherited ones (the runner's pipes among them) are closed first, or the runner
    // would wait for the pane's program to end.
    var prefix =
      "for fd in $(ls /proc/$$/fd); do [ $fd -gt 2 ] && eval \"exec $fd>&-\"; done 2>/dev/null; "
    if let cwd { prefix += "cd \(Self.quote(cwd)) && " }
    return try await shell.runShell(prefix + "tmux -L \(socket) " + arguments)
  }

  /// The screen as text lines.
  public func screen() async throws -> String {
    try await tmux("capture-pane -p -t main").stdout
  }

  /// Waits until `condition` holds for the screen (up to `seconds`); returns the last screen
  /// and whether it held.
  public func waitFor(seconds: Double = Patience.seconds, _ condition: (String) -> Bool)
    async throws
    -> (holds: Bool, screen: String)
  {
    let end = Date().addingTimeInterval(seconds)
    var last = ""
    while Date() < end {
      last = try await screen()
      if condition(last) { return (true, last) }
      try await Task.sleep(for: .milliseconds(50))
    }
    return (false, last)
  }

  /// Sends tmux key names (`Enter`, `Down`, `Escape`, `j`).
  public func keys(_ names: String...) async throws {
    try await tmux("send-keys -t main " + names.map(Self.quote).joined(separator: " "))
  }

  /// Types text literally (Chinese included).
  public func type(_ text: String) async throws {
    try await tmux("send-keys -t main -l " + Self.quote(text))
  }

  /// Resizes the window (the program gets SIGWINCH).
  public func resize(width: Int, height: Int) async throws {
    try await tmux("resize-window -t main -x \(width) -y \(height)")
  }

  /// A tmux format for the pane, such as `#{alternate_on}`.
  public func display(_ format: String) async throws -> String {
    try await tmux("display -p -t main " + Self.quote(format)).stdout
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The most recent paste buffer (what an OSC 52 copy put there), or "" when there is none.
  public func buffer() async throws -> String {
    try await tmux("show-buffer").stdout
  }

  /// A file the script wrote, or `nil`.
  public func file(_ name: String) -> String? {
    try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)
  }

  /// The program's process id, once it started.
  public func pid() async throws -> pid_t? {
    let end = Patience.deadlineDate
    while Date() < end {
      if let text = file("pid"),
        let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
      {
        return pid
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    return nil
  }

  /// Waits for the program's exit status.
  public func exitStatus(seconds: Double = Patience.seconds) async throws -> Int32? {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
      if let text = file("exit"),
        let status = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
      {
        return status
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    return nil
  }

  /// Ends the session (and so its server).
  public func close() async {
    _ = FileManager.default.createFile(atPath: directory + "/done", contents: nil)
    open = false
  }
}
