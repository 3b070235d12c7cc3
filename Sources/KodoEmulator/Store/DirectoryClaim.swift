import StorageCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What an emulator serving a `--writable` directory holds on its `DIR/.kodo-emulator` folder for
/// as long as it serves it: an exclusive `flock`. A second emulator, in this process or another,
/// cannot then write into the same directory at the same time (each would rename its files over
/// the other's and keep a listing the other does not see), and what an emulator that was killed
/// left in `tmp/` can be removed at start-up without touching a running one's files.
final class DirectoryClaim: Sendable {
  /// The descriptor the lock is held through, `-1` once released (or when never held).
  private let descriptor: Mutex<Int32>
  /// Whether the lock is held: `false` on a file system that has no locks (some network and
  /// FUSE file systems), where the emulator serves the directory unclaimed, as before locks.
  let isHeld: Bool

  /// Claims the state folder `state` (a descriptor the claim does not take over).
  ///
  /// - Throws: `.inUse` when another emulator holds it; `.io` when the lock cannot be taken
  ///   for another reason than the file system having none.
  init(state: Int32) throws(WritableDirectory.Failure) {
    let own = Descriptors.duplicate(state)
    guard own >= 0 else { throw .io(errno) }
    while flock(own, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      if code == EINTR { continue }
      close(own)
      if code == ENOLCK || code == EINVAL || code == EOPNOTSUPP {
        descriptor = Mutex(-1)
        isHeld = false
        return
      }
      throw code == EWOULDBLOCK ? .inUse : .io(code)
    }
    descriptor = Mutex(own)
    isHeld = true
  }

  deinit { release() }

  /// Lets another emulator claim the folder (once the server has stopped). Idempotent.
  func release() {
    descriptor.withLock { own in
      guard own >= 0 else { return }
      close(own)  // closing the last descriptor of the open file drops the lock
      own = -1
    }
  }

  /// Removes what an emulator that ended without cleaning up left in `folder` (the bucket's
  /// `tmp/`): the temporary files of writes (`put-*`) and of uploads' parts (`spool-*`), each as
  /// an entry (a link is removed, never followed); anything else is left. Returns how many.
  /// Only while the folder's directory is claimed: the files of a running emulator look the same.
  static func removeLeftovers(in folder: Int32) -> Int {
    let listed = Descriptors.duplicate(folder)
    guard listed >= 0 else { return 0 }
    guard let stream = fdopendir(listed) else {
      close(listed)
      return 0
    }
    defer { closedir(stream) }
    var names = [String]()
    while let record = readdir(stream) {
      let bytes = withUnsafeBytes(of: record.pointee.d_name) { raw in
        Array(raw.prefix(while: { $0 != 0 }))
      }
      guard let name = String(validating: bytes, as: UTF8.self), isLeftover(name) else { continue }
      names.append(name)
    }
    var removed = 0
    for name in names {
      var info = stat()
      guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0,
        info.st_mode & S_IFMT != S_IFDIR, unlinkat(folder, name, 0) == 0
      else { continue }
      removed += 1
    }
    if removed > 0 { _ = fsync(folder) }
    return removed
  }

  /// Whether `name` is one the emulator gives its temporary files.
  static func isLeftover(_ name: String) -> Bool {
    for prefix in [WritableDirectory.PendingFile.prefix, SpoolFile.prefix] {
      if let rest = WireText.dropping(prefix: prefix, from: Substring(name)), !rest.isEmpty {
        return true
      }
    }
    return false
  }
}
