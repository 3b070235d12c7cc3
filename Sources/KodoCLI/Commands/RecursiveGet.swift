import ArgumentParser
import Foundation
import StorageCore
import SystemPackage

/// `get -r BUCKET/PREFIX DIR`: every object under the prefix into DIR, `parallel` at a time.
///
/// A key's path under DIR is what follows the prefix's last `/`. A key that would land outside
/// DIR (a `..` or `.` segment, an empty segment, a NUL) is reported and skipped, and the run ends
/// with exit 65; a zero-byte key ending in `/` is a folder marker and is skipped quietly. A file
/// already there with the object's size and hash is kept, so running the command again resumes
/// it. Each file is written as `get` writes one (a temporary file, checked, then moved in place).
struct RecursiveGet {
  let provider: any StorageProvider
  /// The provider's factory: its once-per-bucket domain lookup.
  let kind: ProviderKind
  let bucket: String
  let prefix: String
  let directory: FilePath
  let domain: DomainChoice
  let parallel: Int
  let json: Bool
  /// Replace a differing local file (otherwise it is kept and reported, exit 73).
  var force = false
  /// Only these, each at its path below `prefix`'s folder (`nil`: every object under
  /// `prefix`): a key ending in `/` is a folder (every object under it), any other one object.
  var entries: [String]? = nil
  /// The objects to fetch, listed already (`sync`), instead of a listing of `prefix`.
  var listed: [ObjectEntry]? = nil
  /// Keep a regular file of the object's size without comparing its hash (`sync --size-only`).
  var sizeOnly = false
  /// The JSON type of a file written (`sync`: `downloaded`).
  var writtenType = "written"

  /// What became of one object.
  enum Outcome: Sendable {
    /// Downloaded; `digest` is the check's value and `field` its JSON name.
    case written(key: String, path: String, size: Int64, digest: String?, field: StaticString)
    /// A file with the object's size and hash was already there.
    case kept(key: String, path: String, size: Int64, digest: String?, field: StaticString)
    /// It failed: reported, and the others go on.
    case failed(key: String, StorageError)
  }

  /// The path under DIR for `key`, or `nil` when it would not stay inside.
  static func relativePath(of key: String, prefix: String) -> [String]? {
    let hidden = KeySegments.folder(of: prefix).utf8.count
    guard key.utf8.count > hidden else { return nil }
    let rest = String(decoding: key.utf8.dropFirst(hidden), as: UTF8.self)
    let segments = KeySegments.segments(of: rest).map(String.init)
    for segment in segments
    where segment.isEmpty || segment == "." || segment == ".." || segment.contains("\0") {
      return nil
    }
    return segments
  }

  /// The counts of a run, and its first failure.
  private struct Tally {
    var written = 0
    var kept = 0
    var failed = 0
    var interrupted = false
    var firstFailure: Int32?

    /// "2 written, 3 already there with the same size and hash, 0 failed" (with `sizeOnly`,
    /// only the size was compared, and the summary says so).
    func summary(sizeOnly: Bool) -> DisplayText {
      "\(written) written, \(kept) already there with the same size\(sizeOnly ? "" : " and hash"), \(failed) failed"
    }

    mutating func fail(_ code: Int32) {
      failed += 1
      if firstFailure == nil { firstFailure = code }
    }
  }

  func run() async throws {
    let output = OutputStream.standardOutput()
    var tally = Tally()
    let json = self.json
    // A bar on the terminal (unless JSON lines go to the same terminal), else plain lines.
    let progress = TransferProgress.forTransfer(json: json, output: output)
    defer { progress.clear() }
    func hint(_ tally: Tally) -> DisplayText {
      "interrupted: \(tally.written) written, \(tally.kept) already there; run the same command again to finish"
    }
    Signals.setResumeHint(hint(tally))
    defer { Signals.setResumeHint(nil) }
    func line(
      _ type: String, _ key: String, _ path: String, _ size: Int64, _ digest: String?,
      _ field: StaticString
    ) throws(StorageError) {
      guard json else { return }
      var line = JSONLine()
      line.string("type", type)
      line.string("key", key)
      line.string("path", path)
      line.int("size", size)
      line.string(field, digest)
      try output.write(line)
      try output.flush()
    }
    func fail(_ error: StorageError) {
      progress.clear()
      tally.fail(ErrorReporting.report(error, notes: [], json: json))
    }
    func report(_ outcome: Outcome) throws(StorageError) {
      switch outcome {
      case .written(let key, let path, let size, let digest, let field):
        tally.written += 1
        progress.finished(bytes: size, transferred: true)
        try line(writtenType, key, path, size, digest, field)
      case .kept(let key, let path, let size, let digest, let field):
        tally.kept += 1
        progress.finished(bytes: size, transferred: false)
        try line("skipped", key, path, size, digest, field)
      case .failed(_, let error):
        progress.finished(bytes: 0, transferred: false)
        if error.kind == .cancelled || Task.isCancelled {
          tally.interrupted = true
        } else if error.kind == .outputClosed {
          throw error
        } else {
          fail(error)
        }
      }
    }
    do {
      try await transfer { event in
        switch event {
        case .listed(let bytes): progress.listed(objects: 1, bytes: bytes)
        case .rejected(let error): fail(error)
        case .finished(let outcome): try report(outcome)
        case .listingComplete: progress.listingComplete()
        }
        // The scan sets a hint of its own (none: a listing's marker is not how this resumes).
        Signals.setResumeHint(hint(tally))
      }
    } catch let failure as CommandFailure where failure.error.kind == .cancelled {
      tally.interrupted = true
    } catch let error as StorageError where error.kind == .cancelled {
      tally.interrupted = true
    }
    try output.flush()
    progress.clear()
    if tally.interrupted || Task.isCancelled {
      throw CommandFailure(
        error: StorageError(.cancelled, "interrupted"), notes: [hint(tally)])
    }
    if !json { Diagnostics.note(tally.summary(sizeOnly: sizeOnly)) }
    if let code = tally.firstFailure { throw ExitCode(code) }
  }

  /// What `transfer` reports, in order, on the caller's task.
  enum Event {
    /// An object found, to be fetched (`bytes` its size).
    case listed(bytes: Int64)
    /// An object skipped before fetching: its path would not stay inside DIR, or a folder of
    /// it could not be made.
    case rejected(StorageError)
    /// An object fetched (or not).
    case finished(Outcome)
    /// Every object has been found.
    case listingComplete
  }

  /// The download itself, for `get -r` and the browser's `s`: lists what to fetch (every object
  /// under `prefix`, or `entries`) and fetches it into DIR, `parallel` at a time, telling
  /// `handle` what happens. Cancelling it stops it; no temporary file is left.
  func transfer(_ handle: (Event) async throws -> Void) async throws {
    try DownloadFile.makeDirectories(directory)
    // Every folder and file under DIR is made relative to DIR's descriptor (M-5).
    let root = open(directory.string, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard root >= 0 else {
      throw StorageError(
        .localIO,
        "cannot open the directory \(DisplayText(quoting: directory.string)): \(Errno(rawValue: errno))"
      )
    }
    defer { _ = Glibc.close(root) }
    var inFlight = 0
    let provider = self.provider
    let bucket = self.bucket
    let force = self.force
    let sizeOnly = self.sizeOnly
    var domain: DomainChoice?
    // Each scan: a folder's prefix, or a key (`exact`: that object only).
    let scans = (entries ?? [prefix]).map { entry in
      (entry, entries != nil && !KeySegments.endsWithSlash(entry))
    }
    try await withThrowingTaskGroup(of: Outcome.self) { group in
      func visit(_ objects: [ObjectEntry], _ scanned: String, exact: Bool) async throws {
        for object in objects {
          if exact && !object.key.utf8.elementsEqual(scanned.utf8) { continue }
          guard let segments = Self.relativePath(of: object.key, prefix: prefix) else {
            if KeySegments.endsWithSlash(object.key) && object.size == 0 { continue }
            try await handle(
              .rejected(
                StorageError(
                  .invalidInput,
                  "skipped \(DisplayText(quoting: object.key)): its path would not stay inside \(DisplayText(quoting: directory.string))"
                )))
            continue
          }
          let destination: FilePath
          let parent: Int32
          do throws(StorageError) {
            (parent, destination) = try Self.prepare(
              segments, in: root, at: directory, key: object.key)
          } catch {
            try await handle(.rejected(error))
            continue
          }
          try await handle(.listed(bytes: object.size))
          if inFlight >= parallel, let outcome = try await group.next() {
            inFlight -= 1
            try await handle(.finished(outcome))
          }
          let resolved: DomainChoice
          if let domain {
            resolved = domain
          } else {
            resolved = try await kind.fixedDownloadChoice(
              self.domain, bucket: bucket, provider: provider)
            domain = resolved
          }
          group.addTask {
            defer { _ = Glibc.close(parent) }
            do throws(StorageError) {
              return try await Self.fetch(
                object, to: destination, in: parent, provider: provider, bucket: bucket,
                domain: resolved, force: force, sizeOnly: sizeOnly)
            } catch {
              return .failed(key: object.key, error)
            }
          }
          inFlight += 1
        }
      }
      if let listed {
        try await visit(listed, prefix, exact: false)
      } else {
        for (scanned, exact) in scans where !Task.isCancelled {
          try await RecursiveScan(
            provider: provider, bucket: bucket, prefix: scanned, pageSize: 1000, parallel: nil
          ).run { objects, _ in
            try await visit(objects, scanned, exact: exact)
            return !Task.isCancelled
          }
        }
      }
      try await handle(.listingComplete)
      while let outcome = try await group.next() { try await handle(.finished(outcome)) }
    }
  }

  /// Opens (making them when missing) the folders of `segments` under `root` (DIR's
  /// descriptor, `directory` its path for messages), each relative to the one before and never
  /// through a symbolic link; returns the last folder's descriptor (the caller closes it) and
  /// the file's path. Throws, for this key only, when a folder cannot be made or opened.
  private static func prepare(
    _ segments: [String], in root: Int32, at directory: FilePath, key: String
  ) throws(StorageError) -> (Int32, FilePath) {
    var path = directory
    var current = Descriptors.duplicate(root)
    guard current >= 0 else {
      throw StorageError(
        .localIO, "cannot open \(DisplayText(quoting: directory.string)): \(Errno(rawValue: errno))"
      )
    }
    for segment in segments.dropLast() {
      path.append(segment)
      let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
      var next = openat(current, segment, flags)
      if next < 0 && errno == ENOENT {
        if mkdirat(current, segment, 0o755) != 0 && errno != EEXIST {
          let failure = Errno(rawValue: errno)
          _ = Glibc.close(current)
          throw StorageError(
            .localIO,
            "skipped \(DisplayText(quoting: key)): cannot create the directory \(DisplayText(quoting: path.string)): \(failure)"
          )
        }
        next = openat(current, segment, flags)
      }
      let failure = Errno(rawValue: errno)
      _ = Glibc.close(current)
      guard next >= 0 else {
        if failure == .notDirectory || failure == .tooManySymbolicLinkLevels {
          throw StorageError(
            .invalidInput,
            "skipped \(DisplayText(quoting: key)): \(DisplayText(quoting: path.string)) is not a directory (a symbolic link is not followed)"
          )
        }
        throw StorageError(
          .localIO,
          "skipped \(DisplayText(quoting: key)): cannot open the directory \(DisplayText(quoting: path.string)): \(failure)"
        )
      }
      current = next
    }
    path.append(segments[segments.count - 1])
    return (current, path)
  }

  /// The digest `check` computes of the regular file `name` in `parent` (opened without
  /// following a link), or `nil` when it is not one or cannot be read.
  private static func digest(of name: String, in parent: Int32, _ check: IntegrityCheck)
    -> String?
  {
    let raw = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard raw >= 0 else { return nil }
    defer { _ = Glibc.close(raw) }
    var status = stat()
    guard fstat(raw, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
    return try? check.compute(raw)
  }

  /// What the listing shows of the regular file `name` in `parent` (opened without following
  /// a link) against `object`, or `nil` when it is not one or cannot be read.
  private static func listedVerdict(
    _ object: ObjectEntry, _ name: String, _ parent: Int32, _ provider: any StorageProvider
  ) -> ListedContent.Verdict? {
    let raw = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard raw >= 0 else { return nil }
    defer { _ = Glibc.close(raw) }
    var status = stat()
    guard fstat(raw, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
    return try? ListedContent.compare(
      object, file: raw, size: Int64(status.st_size), provider: provider)
  }

  /// Downloads one object unless a file with its size and hash (only its size: `sizeOnly`) is
  /// already there; a differing file there is kept (`.exists`) unless `force`.
  private static func fetch(
    _ object: ObjectEntry, to destination: FilePath, in parent: Int32,
    provider: any StorageProvider, bucket: String, domain: DomainChoice, force: Bool,
    sizeOnly: Bool
  ) async throws(StorageError) -> Outcome {
    let name = destination.lastComponent?.string ?? ""
    var existing = stat()
    if sizeOnly, fstatat(parent, name, &existing, AT_SYMLINK_NOFOLLOW) == 0,
      existing.st_mode & S_IFMT == S_IFREG, Int64(existing.st_size) == object.size
    {
      return .kept(
        key: object.key, path: destination.string, size: object.size, digest: nil, field: "hash")
    }
    var details = ObjectDetails(object: object)
    // The listing has no hash to check a download against (OSS gives none; an ETag is not
    // always an MD5): the object's details do (OSS's CRC-64). A file already there that the
    // listing shows to be the same (its MD5 ETag) is kept without asking.
    if provider.integrityCheck(for: details) == nil {
      if fstatat(parent, name, &existing, AT_SYMLINK_NOFOLLOW) == 0,
        existing.st_mode & S_IFMT == S_IFREG, Int64(existing.st_size) == object.size,
        case .same(let digest, let field)? = listedVerdict(object, name, parent, provider)
      {
        return .kept(
          key: object.key, path: destination.string, size: object.size, digest: digest,
          field: field)
      }
      details = try await provider.stat(bucket: bucket, key: object.key)
    }
    let size = details.object.size
    let check = provider.integrityCheck(for: details)
    let field: StaticString =
      details.crc64 != nil && details.crc64 == check?.expected ? "crc64" : "hash"
    let path = destination.string
    var replacing = false
    var status = stat()
    if fstatat(parent, name, &status, AT_SYMLINK_NOFOLLOW) == 0 {
      if status.st_mode & S_IFMT == S_IFREG, Int64(status.st_size) == size, let check,
        digest(of: name, in: parent, check) == check.expected
      {
        return .kept(key: object.key, path: path, size: size, digest: check.expected, field: field)
      }
      guard force else {
        return .failed(
          key: object.key,
          StorageError(
            .exists,
            "kept \(DisplayText(quoting: path)): it differs from \(DisplayText(quoting: object.key)) (pass --force to replace it)"
          ))
      }
      replacing = true
    }
    let digest = try await DownloadFile.fetch(
      DownloadRequest(bucket: bucket, key: object.key, domain: domain, expectedSize: size),
      from: provider, to: destination, in: parent, check: check, replacing: replacing
    ) { check, digest in
      StorageError(
        .protocolError,
        "the downloaded data of \(DisplayText(quoting: object.key)) has \(check.name) \(digest), not the service's \(DisplayText(escaping: check.expected)); nothing was written to \(DisplayText(quoting: path))"
      )
    }
    return .written(key: object.key, path: path, size: size, digest: digest, field: field)
  }
}
