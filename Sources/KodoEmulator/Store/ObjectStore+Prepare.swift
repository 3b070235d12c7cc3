#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A content made ready for `ObjectStore.put`: small bytes, a spool file (an in-memory bucket's
/// large object), or a flushed temporary file beside a directory bucket's files, renamed into
/// place by `put`.
enum PreparedContent {
  case bytes([UInt8])
  case spooled(SpoolFile)
  case pending(WritableDirectory.PendingFile)
  /// The first `size` bytes of an upload session's file, whose parts lie where the object has
  /// them (`PartLayout`): cut to `size` and kept as it is (an in-memory bucket's spool file),
  /// or flushed and renamed into place (a directory bucket's temporary folder). No byte is
  /// copied.
  case inPlace(SpoolFile, size: Int64)
}

extension ObjectStore {
  /// Joins `payloads`, in order, into content this bucket can store, computing the digests
  /// `options` names as the bytes go by (each byte read once). With no digest asked for, spooled
  /// bytes are copied by the kernel, and one whole spool file is taken as it is.
  func prepare(_ payloads: [Payload], digests options: DigestPass.Options = [])
    throws(StoreFailure) -> (content: PreparedContent, digests: PartDigests)
  {
    var pass = DigestPass(options)
    let total = payloads.reduce(0) { $0 + $1.count }
    if let directory {
      let file: WritableDirectory.PendingFile
      do throws(WritableDirectory.Failure) {
        file = try directory.pendingFile()
      } catch {
        throw .io
      }
      for payload in payloads {
        if options.isEmpty, case .spooled(let source, let offset, let count) = payload,
          try FileCopy.copy(
            from: source.descriptor, at: offset, count: count, to: file.descriptor)
        {
          file.grew(by: count)
          continue
        }
        try payload.forEachChunk { (chunk) throws(StoreFailure) in
          pass.update(chunk)
          do throws(WritableDirectory.Failure) {
            try file.append(chunk)
          } catch {
            throw .io
          }
        }
      }
      return (.pending(file), pass.digests)
    }
    guard total > Int64(Payload.inMemorySize), let spool else {
      var bytes = [UInt8]()
      bytes.reserveCapacity(Int(total))
      for payload in payloads {
        try payload.forEachChunk { chunk in
          pass.update(chunk)
          bytes.append(contentsOf: chunk)
        }
      }
      return (.bytes(bytes), pass.digests)
    }
    if options.isEmpty, payloads.count == 1,
      case .spooled(let whole, 0, let count) = payloads[0], count == whole.size
    {
      return (.spooled(whole), pass.digests)
    }
    let file: SpoolFile
    do throws(SpoolDirectory.Failure) {
      file = try spool.newFile()
    } catch {
      throw .io
    }
    for payload in payloads {
      if options.isEmpty, case .spooled(let source, let offset, let count) = payload,
        try file.appendCopy(from: source, at: offset, count: count)
      {
        continue
      }
      try payload.forEachChunk { (chunk) throws(StoreFailure) in
        pass.update(chunk)
        do throws(SpoolDirectory.Failure) {
          try file.append(chunk)
        } catch {
          throw .io
        }
      }
    }
    return (.spooled(file), pass.digests)
  }
}

/// Copies between files in the kernel (`sendfile`, Linux), without the bytes passing through
/// the process.
enum FileCopy {
  /// Copies `count` bytes from `offset` of `source` to the current offset of `target`;
  /// `false`, having copied nothing, where the kernel cannot (the caller copies by reads).
  static func copy(from source: Int32, at offset: Int64, count: Int64, to target: Int32)
    throws(StoreFailure) -> Bool
  {
    #if os(Linux)
      var position = off_t(offset)
      var remaining = count
      while remaining > 0 {
        let sent = sendfile(target, source, &position, Int(min(remaining, 1 << 30)))
        if sent < 0 {
          if errno == EINTR { continue }
          if remaining == count && (errno == EINVAL || errno == ENOSYS) { return false }
          throw .io
        }
        // The source ended early.
        if sent == 0 { throw .io }
        remaining -= Int64(sent)
      }
      return true
    #else
      return false
    #endif
  }
}
