public import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A child process started with `posix_spawn`, reaped by a thread of its own.
///
/// Not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` and copies each
/// entry's name as a whole 256-byte `d_name`, reading past the last, shorter entry of the
/// directory buffer; where that buffer ends a mapping the test process dies with SIGSEGV in
/// `memcpy` (seen in CI; AddressSanitizer reports it as a heap-buffer-overflow in
/// `findMaximumOpenFromProcSelfFD`). Here the child closes every descriptor from 3 on
/// (`posix_spawn_file_actions_addclosefrom_np`), starts with every signal at its default and
/// none blocked, and is waited for with `waitpid` on a thread that is not the cooperative pool's.
public final class SpawnedProcess: @unchecked Sendable {
  // `status` is guarded by `condition`, which makes the conformance sound.

  /// How the process ended.
  public enum TerminationReason: Sendable, Equatable {
    case exit
    case uncaughtSignal
  }

  /// The child's process id.
  public let processIdentifier: pid_t
  private let condition = NSCondition()
  /// The raw `waitpid` status, once the child has ended.
  private var status: Int32?

  /// Starts `executable` (a path) with `arguments` and exactly `environment`, its standard
  /// input, output and error on the given descriptors (the parent keeps its own copies).
  public init(
    executable: String, arguments: [String], environment: [String: String],
    standardInput: Int32, standardOutput: Int32, standardError: Int32
  ) throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
    posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
    posix_spawn_file_actions_adddup2(&actions, standardError, 2)
    try Self.closeFromThree(&actions)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var everySignal = sigset_t()
    sigfillset(&everySignal)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &everySignal)
    var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
    #if canImport(Darwin)
      flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
    #endif
    posix_spawnattr_setflags(&attributes, Int16(flags))

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup($0.key + "=" + $0.value) } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    var pid = pid_t()
    let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    guard code == 0 else {
      throw SpawnFailure(
        description: "cannot start \(executable): " + String(cString: strerror(code)))
    }
    processIdentifier = pid
    let child = pid
    Thread { [self] in
      var raw: Int32 = 0
      while waitpid(child, &raw, 0) < 0 && errno == EINTR {}
      condition.lock()
      status = raw
      condition.broadcast()
      condition.unlock()
    }.start()
  }

  /// Adds "close every descriptor from 3 on" to `actions`: glibc's
  /// `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run time because
  /// the Glibc module does not import it. On Darwin `POSIX_SPAWN_CLOEXEC_DEFAULT` does this.
  private static func closeFromThree(_ actions: inout posix_spawn_file_actions_t) throws {
    #if canImport(Glibc)
      typealias CloseFrom =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
      guard
        let symbol = dlsym(
          UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
      else {
        throw SpawnFailure(
          description: "this C library has no posix_spawn_file_actions_addclosefrom_np")
      }
      let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
      guard closeFrom(&actions, 3) == 0 else {
        throw SpawnFailure(description: "posix_spawn_file_actions_addclosefrom_np failed")
      }
    #endif
  }

  /// Whether the child has not ended yet.
  public var isRunning: Bool {
    condition.lock()
    defer { condition.unlock() }
    return status == nil
  }

  /// Blocks until the child has ended. Call it off the cooperative pool, or once `isRunning` is
  /// `false`.
  public func waitUntilExit() {
    condition.lock()
    while status == nil { condition.wait() }
    condition.unlock()
  }

  /// Whether the child exited or was ended by a signal (after `waitUntilExit`).
  public var terminationReason: TerminationReason {
    let raw = endedStatus
    return raw & 0x7F == 0 ? .exit : .uncaughtSignal
  }

  /// The exit code, or the number of the signal that ended the child (after `waitUntilExit`).
  public var terminationStatus: Int32 {
    let raw = endedStatus
    return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : raw & 0x7F
  }

  private var endedStatus: Int32 {
    waitUntilExit()
    condition.lock()
    defer { condition.unlock() }
    return status ?? 0
  }
}

/// A child process could not be started.
public struct SpawnFailure: Error, CustomStringConvertible {
  public let description: String
}
