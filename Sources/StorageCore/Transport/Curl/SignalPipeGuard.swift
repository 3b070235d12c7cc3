#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Keeps SIGPIPE from killing the process while a transfer writes to a pipe whose reader left.
///
/// SIGPIPE raised by `write(2)` is sent to the writing thread, so blocking it on the transfer's
/// thread turns it into a pending signal while the write fails with EPIPE (which becomes
/// `.outputClosed`); the pending signal is then consumed and the thread's signal mask restored.
/// Nothing process-wide changes, so the library is safe in a process that does not ignore
/// SIGPIPE. libcurl's own socket writes already avoid the signal (`MSG_NOSIGNAL`). Elsewhere than
/// Linux this does nothing and the caller must ignore SIGPIPE (the CLI does).
enum SignalPipeGuard {
  /// Runs `body` on the current thread with SIGPIPE blocked, and discards a SIGPIPE it raised.
  static func run<Result>(_ body: () -> Result) -> Result {
    #if os(Linux)
      var pipeOnly = sigset_t()
      sigemptyset(&pipeOnly)
      sigaddset(&pipeOnly, SIGPIPE)
      var previous = sigset_t()
      guard pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous) == 0 else { return body() }
      defer {
        // Only a SIGPIPE this thread could not receive before is ours to discard. (Linux keeps
        // a blocked signal pending even when its disposition is "ignore".)
        var pending = sigset_t()
        if sigismember(&previous, SIGPIPE) == 0, sigpending(&pending) == 0,
          sigismember(&pending, SIGPIPE) == 1
        {
          var noWait = timespec(tv_sec: 0, tv_nsec: 0)
          _ = sigtimedwait(&pipeOnly, nil, &noWait)
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
      }
      return body()
    #else
      return body()
    #endif
  }
}
