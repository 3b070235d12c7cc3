#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Descriptors made other than by `open`/`openat` (which pass `O_CLOEXEC` themselves), closed on
/// exec like every descriptor kodo and the emulator make. `dup(2)` and `mkstemp(3)` leave that
/// flag clear: a process started meanwhile (a test running `kodo`, a shell command) would keep
/// the file open for its whole life, and with it a `flock` taken through it (the emulator's
/// claim on a `--writable` directory). `make lint` refuses the bare calls in Sources.
package enum Descriptors {
  /// A new descriptor of the open file `descriptor` refers to (`F_DUPFD_CLOEXEC`), or `-1` with
  /// `errno` set.
  package static func duplicate(_ descriptor: Int32) -> Int32 {
    fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
  }

  /// A new file from `template` (its trailing `XXXXXX` replaced), closed on exec, or `-1` with
  /// `errno` set. (`mkostemp`, which would set the flag as it makes the file, is not in the
  /// C library's Swift module; kodo starts no process while it makes one.)
  package static func temporaryFile(_ template: UnsafeMutablePointer<CChar>) -> Int32 {
    let descriptor = mkstemp(template)
    if descriptor >= 0 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    return descriptor
  }
}
