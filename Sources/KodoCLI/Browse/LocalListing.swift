import Foundation
import KodoBrowse
import StorageCore

/// The entries of a local directory for the browser's Tab completion: names that are valid
/// UTF-8 (others cannot be typed back), at most `limit` of them, with whether each is a
/// directory (a link is followed to tell). Read on a thread of its own, never on Swift's
/// cooperative pool.
enum LocalListing {
  static let limit = 100_000

  /// Lists `directory` on a new thread and hands the result to `deliver`.
  static func start(
    _ directory: String, deliver: @escaping @Sendable (Result<[LocalEntry], Failure>) -> Void
  ) {
    let thread = Thread { deliver(list(directory)) }
    thread.start()
  }

  static func list(_ directory: String) -> Result<[LocalEntry], Failure> {
    guard let stream = opendir(directory) else {
      let reason = String(cString: strerror(errno))
      return .failure(Failure("cannot list \(DisplayText.quoted(directory)): \(reason)"))
    }
    defer { closedir(stream) }
    let base = KeySegments.endsWithSlash(directory) ? directory : directory + "/"
    var entries: [LocalEntry] = []
    while entries.count < limit, let record = readdir(stream) {
      let bytes = withUnsafeBytes(of: record.pointee.d_name) { raw in
        Array(raw.prefix(while: { $0 != 0 }))
      }
      if bytes == [UInt8(ascii: ".")] || bytes == [UInt8(ascii: "."), UInt8(ascii: ".")] {
        continue
      }
      guard let name = String(validating: bytes, as: UTF8.self) else { continue }
      var isDirectory = Int32(record.pointee.d_type) == Int32(DT_DIR)
      let type = Int32(record.pointee.d_type)
      if type == Int32(DT_LNK) || type == Int32(DT_UNKNOWN) {
        var info = stat()
        isDirectory = stat(base + name, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
      }
      entries.append(LocalEntry(name: name, isDirectory: isDirectory))
    }
    return .success(entries)
  }
}
