import ArgumentParser
import Foundation
import KodoCore
import StorageCore
import Synchronization

/// Downloads share the URL logic of `url`: a short-lived signed URL on the chosen domain.
enum Fetch {
  static func prepare(bucket: String, key: String, context: Context, download: DownloadOptions)
    async throws -> (
      client: KodoClient, stat: ObjectStat, url: String
    )
  {
    let client = try context.client()
    let stat = try await client.stat(bucket: bucket, key: key)
    let domain = try await download.resolve(bucket: bucket, context: context, client: client)
    let url = client.downloadURL(
      domain: domain.baseURL, key: key, deadline: client.deadline(expiresIn: 3600))
    return (client, stat, url)
  }
}

struct Cat: KodoCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write an object's bytes to stdout, streaming.",
    discussion: """
      Examples:
        kodo cat logs 2024-06-01/app.log | grep ERROR
        kodo cat photos 2024/beach.jpg > beach.jpg
      """
  )

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo
  @OptionGroup var download: DownloadOptions

  @OptionGroup var object: ObjectArguments

  func execute(_ context: Context) async throws {
    let (bucket, key) = try object.resolve(context)
    let (client, stat, url) = try await Fetch.prepare(
      bucket: bucket, key: key, context: context, download: download)
    // A regular file on stdout can be rewound for a retry; a pipe or terminal cannot.
    var info = Foundation.stat()
    let seekable =
      fstat(1, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && lseek(1, 0, SEEK_CUR) == 0
    let rewind: (@Sendable () -> Bool)? =
      seekable ? { @Sendable in ftruncate(1, 0) == 0 && lseek(1, 0, SEEK_SET) == 0 } : nil
    _ = try await client.download(url: url, to: 1, expectedSize: stat.object.size, rewind: rewind)
  }
}

struct Get: KodoCommand {
  static let configuration = CommandConfiguration(
    abstract: "Download an object to a file, checking its size and hash.",
    discussion: """
      The object is written to a temporary file next to the destination and renamed when it is \
      complete and its size and Kodo hash (qetag) match, so an interrupted download never leaves \
      a truncated file under the final name. An existing file is kept unless --force.

      Examples:
        kodo get photos 2024/beach.jpg                # writes ./beach.jpg
        kodo get photos 2024/beach.jpg -o /tmp/b.jpg
        kodo get --force logs 2024-06-01/app.log
      """
  )

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo
  @OptionGroup var download: DownloadOptions

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp(
      "Where to write (default: the key's last path segment; a directory keeps that name).",
      valueName: "PATH"))
  var output: String?

  @Flag(help: "Replace an existing file.")
  var force = false

  @OptionGroup var object: ObjectArguments

  func execute(_ context: Context) async throws {
    let (bucket, key) = try object.resolve(context)
    let name =
      key.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
    var destination = output ?? name
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      destination = (destination as NSString).appendingPathComponent(name)
    }
    guard !destination.isEmpty, !name.isEmpty || output != nil else {
      throw StorageError(
        .invalidInput, "the key \(DisplayText.quoted(key)) has no file name; give one with -o PATH")
    }
    if !force && FileManager.default.fileExists(atPath: destination) {
      throw StorageError(.invalidInput, "\(destination) exists; use --force to replace it")
    }
    let (client, stat, url) = try await Fetch.prepare(
      bucket: bucket, key: key, context: context, download: download)
    let directory = (destination as NSString).deletingLastPathComponent
    let temporary =
      (directory.isEmpty ? "." : directory)
      + "/.\((destination as NSString).lastPathComponent).kodo-\(getpid()).part"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw StorageError(
        .localIO, "cannot create \(temporary): \(String(cString: strerror(errno)))")
    }
    TemporaryFiles.register(temporary)
    var keep = false
    defer {
      close(descriptor)
      if !keep { unlink(temporary) }
      TemporaryFiles.unregister(temporary)
    }
    _ = try await client.download(
      url: url, to: descriptor, expectedSize: stat.object.size,
      rewind: { ftruncate(descriptor, 0) == 0 && lseek(descriptor, 0, SEEK_SET) == 0 })
    guard fsync(descriptor) == 0 else {
      throw StorageError(.localIO, "cannot write \(temporary): \(String(cString: strerror(errno)))")
    }
    let hash: String
    do {
      hash = try QETag.hash(fileAt: temporary)
    } catch {
      throw StorageError(.localIO, "\(error)")
    }
    guard hash == stat.object.hash else {
      throw StorageError(
        .protocolError,
        "the downloaded data's hash \(hash) does not match Kodo's \(DisplayText.escaped(stat.object.hash)); nothing was written to \(destination)"
      )
    }
    if !force && FileManager.default.fileExists(atPath: destination) {
      throw StorageError(
        .invalidInput, "\(destination) appeared while downloading; use --force to replace it")
    }
    guard rename(temporary, destination) == 0 else {
      throw StorageError(
        .localIO,
        "cannot rename \(temporary) to \(destination): \(String(cString: strerror(errno)))")
    }
    keep = true
    if !context.options.json {
      Diagnostics.note("wrote \(destination) (\(stat.object.size) bytes)")
    } else {
      let out = OutputStream(fileDescriptor: 1)
      var line = JSONLine()
      line.string("key", key)
      line.string("path", destination)
      line.int("size", stat.object.size)
      line.string("hash", hash)
      try out.write(bytes: line.finish())
      try out.flush()
    }
  }
}

/// Temporary files to remove if a signal ends the process before the command can.
enum TemporaryFiles {
  private static let paths = Mutex(Set<String>())

  static func register(_ path: String) { _ = paths.withLock { $0.insert(path) } }
  static func unregister(_ path: String) { _ = paths.withLock { $0.remove(path) } }
  static func removeAll() {
    for path in paths.withLock({ $0 }) { unlink(path) }
  }
}
