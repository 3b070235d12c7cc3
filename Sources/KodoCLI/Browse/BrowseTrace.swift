import Foundation
import KodoBrowse

/// A bench aid: with `KODO_BROWSE_TRACE=FILE`, `kodo browse` appends one line per frame drawn to
/// FILE (never to the terminal), for bench/browse_bench.py to time the browser from outside:
///
///     frame t=UNIX_SECONDS cpu_us=N bytes=N event=KIND cursor=N rows=N loaded=N complete=0|1
///       buckets=0|1
///
/// `t` is the wall clock after the frame's bytes were written; `cpu_us` the thread CPU time of
/// the event's update, view and diff; `bytes` what the diff wrote; `event` what caused the frame
/// (`start`, `key`, `page`, `buckets`, `stat`, `range` (the pager's), `upload` (an upload's
/// progress), `uploaded` (its end), `other`, `signal`). The file is created (mode
/// 0600) or truncated at start; a file that cannot be opened means no trace, silently.
final class BrowseTrace {
  private let descriptor: Int32
  private var started: timespec = timespec()

  /// The trace the environment asks for, if any.
  init?(environment: [String: String]) {
    guard let path = environment["KODO_BROWSE_TRACE"], !path.isEmpty else { return nil }
    let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard opened >= 0 else { return nil }
    descriptor = opened
  }

  deinit { _ = Foundation.close(descriptor) }

  /// Marks the start of an event's work (its CPU is counted from here).
  func begin() {
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &started)
  }

  /// Records a frame: what caused it, what the diff wrote, and where the browser is.
  func frame(_ event: String, bytes: Int, state: State) {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    let cpu = (now.tv_sec - started.tv_sec) * 1_000_000 + (now.tv_nsec - started.tv_nsec) / 1000
    var wall = timespec()
    clock_gettime(CLOCK_REALTIME, &wall)
    let micros = String(wall.tv_nsec / 1000)
    let padded = String(repeating: "0", count: max(0, 6 - micros.count)) + micros
    let folder = state.folder
    let line =
      "frame t=\(wall.tv_sec).\(padded) cpu_us=\(cpu) bytes=\(bytes) event=\(event)"
      + " cursor=\(state.cursor) rows=\(state.rows.count) loaded=\(folder?.count ?? 0)"
      + " complete=\(folder?.complete == true ? 1 : 0) buckets=\(state.bucketsLoaded ? 1 : 0)\n"
    let bytes = Array(line.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        write(descriptor, $0.baseAddress.map { $0 + offset }, $0.count - offset)
      }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }

  /// The trace's name for what caused a frame.
  static func kind(_ message: Message) -> String {
    switch message {
    case .start: return "start"
    case .key: return "key"
    case .pageLoaded: return "page"
    case .bucketsLoaded: return "buckets"
    case .statLoaded: return "stat"
    case .rangeLoaded: return "range"
    case .uploadProgress: return "upload"
    case .uploadFinished: return "uploaded"
    default: return "other"
    }
  }
}
