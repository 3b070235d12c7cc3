import Foundation
import KodoCore
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
  let bucket: String
  let prefix: String
  let directory: FilePath
  let domain: DomainChoice
  let parallel: Int
  let json: Bool

  enum Outcome: Sendable {
    case written(key: String, path: String, size: Int64)
    case kept(key: String, path: String, size: Int64)
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

  func run() async throws {
    guard DownloadFile.isDirectory(directory) else {
      throw StorageError(
        .invalidInput,
        "\(DisplayText.quoted(directory.string)) is not a directory; create it first")
    }
    let output = OutputStream.standardOutput()
    var skipped = 0
    var written = 0
    var kept = 0
    var inFlight = 0
    let provider = self.provider
    let bucket = self.bucket
    var domain: DomainChoice?
    // A bar on the terminal, unless JSON lines go to the same terminal.
    let progress = TransferProgress(enabled: Diagnostics.isTerminal && !(json && output.isTerminal))
    defer { progress.clear() }
    func report(_ outcome: Outcome) throws(StorageError) {
      switch outcome {
      case .written(let key, let path, let size):
        written += 1
        progress.finished(bytes: size, transferred: true)
        if json {
          var line = JSONLine()
          line.string("key", key)
          line.string("path", path)
          line.int("size", size)
          try output.write(line)
          try output.flush()
        }
      case .kept(_, _, let size):
        kept += 1
        progress.finished(bytes: size, transferred: false)
      }
    }
    try await withThrowingTaskGroup(of: Outcome.self) { group in
      try await RecursiveScan(
        provider: provider, bucket: bucket, prefix: prefix, pageSize: 1000, parallel: nil
      ).run { objects, _ in
        for object in objects {
          guard let segments = Self.relativePath(of: object.key, prefix: prefix) else {
            if KeySegments.endsWithSlash(object.key) && object.size == 0 { continue }
            skipped += 1
            progress.clear()
            Diagnostics.warning(
              "skipped \(DisplayText(quoting: object.key)): its path would not stay inside \(DisplayText(quoting: directory.string))"
            )
            continue
          }
          let destination = try Self.prepare(
            segments, in: directory, key: object.key, progress: progress)
          guard let destination else {
            skipped += 1
            continue
          }
          progress.listed(objects: 1, bytes: object.size)
          if inFlight >= parallel, let outcome = try await group.next() {
            inFlight -= 1
            try report(outcome)
          }
          let resolved: DomainChoice
          if let domain {
            resolved = domain
          } else {
            resolved = try await Self.resolve(self.domain, bucket, provider)
            domain = resolved
          }
          group.addTask {
            try await Self.fetch(
              object, to: destination, provider: provider, bucket: bucket, domain: resolved)
          }
          inFlight += 1
        }
        return true
      }
      progress.listingComplete()
      while let outcome = try await group.next() { try report(outcome) }
    }
    try output.flush()
    progress.clear()
    if !json {
      Diagnostics.note(
        "\(written) written, \(kept) already there with the same size and hash, \(skipped) skipped"
      )
    }
    if skipped > 0 {
      throw CommandFailure(
        error: StorageError(
          .invalidInput,
          "\(skipped) key\(skipped == 1 ? "" : "s") could not be written inside \(DisplayText(quoting: directory.string)) (see the warnings above)"
        ), notes: [])
    }
  }

  /// `choice` with Kodo's bound domain looked up once, so that each download does not ask for
  /// it again (a request per object, as slow as the download itself on a far service).
  private static func resolve(
    _ choice: DomainChoice, _ bucket: String, _ provider: any StorageProvider
  ) async throws -> DomainChoice {
    guard choice.explicit == nil, choice.configured == nil, let kodo = provider as? KodoClient
    else { return choice }
    let domain = try await kodo.downloadDomain(bucket: bucket, choice: choice)
    return DomainChoice(configured: domain.baseURL)
  }

  /// Makes the folders of `segments` under `directory` (never through a symbolic link) and
  /// returns the file's path, or `nil` (reported) when a folder cannot be made.
  private static func prepare(
    _ segments: [String], in directory: FilePath, key: String, progress: TransferProgress
  ) throws -> FilePath? {
    var path = directory
    for segment in segments.dropLast() {
      path.append(segment)
      if let status = try? SystemPackage.Stat(path, followTargetSymlink: false) {
        if status.type == .directory { continue }
        progress.clear()
        Diagnostics.warning(
          "skipped \(DisplayText(quoting: key)): \(DisplayText(quoting: path.string)) is not a directory (a symbolic link is not followed)"
        )
        return nil
      }
      if mkdir(path.string, 0o755) != 0 && errno != EEXIST {
        throw StorageError(
          .localIO,
          "cannot create the directory \(DisplayText(quoting: path.string)): \(Errno(rawValue: errno))"
        )
      }
    }
    path.append(segments[segments.count - 1])
    return path
  }

  /// Downloads one object unless a file with its size and hash is already there.
  private static func fetch(
    _ object: ObjectEntry, to destination: FilePath, provider: any StorageProvider,
    bucket: String, domain: DomainChoice
  ) async throws -> Outcome {
    let check = provider.integrityCheck(for: ObjectDetails(object: object))
    if let status = try? SystemPackage.Stat(destination, followTargetSymlink: false),
      status.type == .regular, status.size == object.size, let check,
      (try? check.compute(destination.string)) == check.expected
    {
      return .kept(key: object.key, path: destination.string, size: object.size)
    }
    _ = try await DownloadFile.fetch(
      DownloadRequest(bucket: bucket, key: object.key, domain: domain, expectedSize: object.size),
      from: provider, to: destination, check: check, replacing: true
    ) { check, digest in
      StorageError(
        .protocolError,
        "the downloaded data of \(DisplayText(quoting: object.key)) has \(check.name) \(digest), not the service's \(DisplayText(escaping: check.expected)); nothing was written to \(DisplayText(quoting: destination.string))"
      )
    }
    return .written(key: object.key, path: destination.string, size: object.size)
  }
}
