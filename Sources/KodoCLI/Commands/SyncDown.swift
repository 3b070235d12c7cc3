import ArgumentParser
import StorageCore
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `sync BUCKET/PREFIX/ DIR`: the prefix listed once (its objects, in memory), DIR walked
/// without following links (its regular files), then the objects fetched by `get -r`'s
/// transfer, a differing file replaced; with `--delete`, the regular files under DIR that no
/// object has are deleted at the end (through directory descriptors, never through a link),
/// only when every copy succeeded. Folders are kept, even when emptied.
struct SyncDown {
  let provider: any StorageProvider
  let kind: ProviderKind
  let bucket: String
  let prefix: String
  let directory: String
  let patterns: KeyPatterns
  let options: Sync
  let json: Bool
  let domain: DomainChoice

  func run() async throws {
    var objects: [ObjectEntry] = []
    // By bytes (`ExactKey`): two names that differ only in their Unicode normalization are two
    // files, and an object at one of them does not keep a local file at the other.
    var remote = Set<ExactKey>()
    try await RecursiveScan(
      provider: provider, bucket: bucket, prefix: prefix, pageSize: 1000, parallel: nil
    ).run { page, _ in
      for object in page {
        // A key that would not stay inside DIR goes on, for get -r's transfer to report.
        guard let segments = RecursiveGet.relativePath(of: object.key, prefix: prefix) else {
          objects.append(object)
          continue
        }
        let relative = segments.joined(separator: "/")
        guard patterns.keeps(relative) else { continue }
        remote.insert(ExactKey(relative))
        objects.append(object)
      }
      return !Task.isCancelled
    }
    let local = localFiles()
    let extra =
      options.delete
      ? local.keys.filter { !remote.contains($0) && patterns.keeps($0.text) }.map(\.text).sorted {
        $0.utf8.lexicographicallyPrecedes($1.utf8)
      } : []
    guard
      try options.confirmDeleting(extra.count, "local file", at: DisplayText(quoting: directory))
    else { return }
    if options.dryRun { return try await dryRun(objects, local, extra) }
    do {
      try await RecursiveGet(
        provider: provider, kind: kind, bucket: bucket, prefix: prefix,
        directory: FilePath(directory),
        domain: domain, parallel: options.parallel ?? 4, json: json, force: true,
        listed: objects, sizeOnly: options.sizeOnly, writtenType: "downloaded"
      ).run()
    } catch let code as ExitCode where !extra.isEmpty {
      Diagnostics.note("nothing deleted: not every object was copied")
      throw code
    }
    guard !extra.isEmpty else { return }
    try deleteLocal(extra)
  }

  /// The regular files under DIR (relative path → path), reached without following a link;
  /// none when DIR does not exist. What the walk skips or cannot read is not a candidate.
  private func localFiles() -> [ExactKey: String] {
    var status = stat()
    guard stat(directory, &status) == 0 else { return [:] }
    var files: [ExactKey: String] = [:]
    for case .file(let file) in LocalTree(root: directory, followLinks: false) {
      files[ExactKey(file.relative)] = file.path
    }
    return files
  }

  /// Deletes the regular files at `relatives` under DIR, each reached through directory
  /// descriptors without following a link; anything else there is kept and reported.
  private func deleteLocal(_ relatives: [String]) throws {
    let output = OutputStream.standardOutput()
    var deleted = 0
    var firstFailure: Int32?
    let root = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard root >= 0 else {
      throw StorageError(
        .localIO,
        "cannot open the directory \(DisplayText(quoting: directory)): \(Errno(rawValue: errno))")
    }
    defer { _ = close(root) }
    for relative in relatives {
      let path = (FilePath(directory).appending(relative)).string
      do throws(StorageError) {
        try Self.unlinkRegular(relative, under: root, path: path)
        deleted += 1
        if json {
          var line = JSONLine()
          line.string("type", "deleted")
          line.string("path", path)
          try output.write(line)
        }
      } catch {
        if error.kind == .outputClosed { throw error }
        let code = ErrorReporting.report(error, notes: [], json: json)
        if firstFailure == nil { firstFailure = code }
      }
    }
    try output.flush()
    Diagnostics.note(
      "deleted \(deleted) of \(relatives.count) local \(relatives.count == 1 ? "file" : "files")")
    if let firstFailure { throw ExitCode(firstFailure) }
  }

  /// Removes the regular file `relative` (`/`-separated) under `root`: each folder opened
  /// relative to the one before with `O_NOFOLLOW`, the file checked to be regular (not a link)
  /// and unlinked in its folder.
  static func unlinkRegular(_ relative: String, under root: Int32, path: String)
    throws(StorageError)
  {
    let segments = KeySegments.segments(of: relative).map(String.init)
    var current = Descriptors.duplicate(root)
    guard current >= 0 else {
      throw StorageError(
        .localIO, "cannot delete \(DisplayText(quoting: path)): \(Errno(rawValue: errno))")
    }
    defer { _ = close(current) }
    for segment in segments.dropLast() {
      let next = openat(current, segment, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      guard next >= 0 else {
        throw StorageError(
          .localIO,
          "kept \(DisplayText(quoting: path)): its folder cannot be opened without following a link: \(Errno(rawValue: errno))"
        )
      }
      _ = close(current)
      current = next
    }
    let name = segments.last ?? ""
    var status = stat()
    guard fstatat(current, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
      if errno == ENOENT { return }
      throw StorageError(
        .localIO, "cannot delete \(DisplayText(quoting: path)): \(Errno(rawValue: errno))")
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw StorageError(
        .localIO, "kept \(DisplayText(quoting: path)): it is no longer a regular file")
    }
    guard unlinkat(current, name, 0) == 0 || errno == ENOENT else {
      throw StorageError(
        .localIO, "cannot delete \(DisplayText(quoting: path)): \(Errno(rawValue: errno))")
    }
  }

  /// What a run would download and delete, compared as a run compares (size, then the
  /// provider's hash of the local file), nothing changed.
  private func dryRun(_ objects: [ObjectEntry], _ local: [ExactKey: String], _ extra: [String])
    async throws
  {
    let output = OutputStream.standardOutput()
    var copied = 0
    var kept = 0
    for object in objects {
      guard let segments = RecursiveGet.relativePath(of: object.key, prefix: prefix) else {
        continue
      }
      if let path = local[ExactKey(segments.joined(separator: "/"))],
        try await isSame(object, path)
      {
        kept += 1
        continue
      }
      copied += 1
      try syncDryRunLine("download", "key", object.key, size: object.size, json: json, to: output)
    }
    for relative in extra {
      let path = FilePath(directory).appending(relative).string
      try syncDryRunLine("delete", "path", path, size: nil, json: json, to: output)
    }
    try output.flush()
    Diagnostics.note(
      "would download \(copied), keep \(kept) the same, delete \(extra.count); nothing changed")
  }

  /// Whether the regular file at `path` has `object`'s size and (unless `--size-only`) hash.
  ///
  /// The file is opened without following a link and read through that descriptor, so what is
  /// compared is what was checked to be a regular file.
  private func isSame(_ object: ObjectEntry, _ path: String) async throws -> Bool {
    if options.sizeOnly {
      var status = stat()
      return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        && Int64(status.st_size) == object.size
    }
    guard let file = ListedContent.openRegular(path, size: object.size, noFollow: true) else {
      return false
    }
    defer { _ = close(file) }
    var details = ObjectDetails(object: object)
    if provider.integrityCheck(for: details) == nil {
      // The listing's MD5 ETag (OSS) settles a file that is the same; else the CRC-64 does.
      if case .same? = try? ListedContent.compare(
        object, file: file, size: object.size, provider: provider)
      {
        return true
      }
      details = try await provider.stat(bucket: bucket, key: object.key)
    }
    guard let check = provider.integrityCheck(for: details) else { return false }
    return (try? check.compute(file)) == check.expected
  }
}
