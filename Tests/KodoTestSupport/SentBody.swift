public import StorageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension RequestBody {
  /// The bytes a transport would send, read now: the bytes in memory, or the file's range read
  /// with `pread`; `nil` for a stream, or a file that cannot be read or is shorter than the range.
  public func sentBytes() -> [UInt8]? {
    switch source {
    case .bytes(let bytes): return bytes
    case .stream: return nil
    case .file(let descriptor, let offset, let length):
      var bytes = [UInt8](repeating: 0, count: Int(length))
      var done = 0
      while done < bytes.count {
        let got = bytes[done...].withUnsafeMutableBytes {
          pread(descriptor, $0.baseAddress, $0.count, off_t(offset) + off_t(done))
        }
        if got < 0 && errno == EINTR { continue }
        guard got > 0 else { return nil }
        done += got
      }
      return bytes
    }
  }
}
