import ArgumentParser
import Foundation
import StorageCore
import SystemPackage

struct Cat: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "cat",
    abstract: "Write an object's bytes to stdout, streaming.",
    usage: ObjectArguments.usage("cat"),
    discussion: """
      A download that fails before any byte was written is retried; once bytes have reached \
      stdout, it is not (stdout is never rewound or truncated, so `kodo cat KEY >> file` is \
      safe). --range START-END writes only those bytes (offsets from 0, both included, as in \
      HTTP): START- runs to the end, -COUNT is the last COUNT bytes (write it --range=-COUNT).

      On OSS the whole object's CRC-64 (x-oss-hash-crc64ecma) is computed as the bytes stream \
      and checked at the end, as get checks it: a mismatch is exit status 76, after the bytes \
      were written. A --range cannot be checked (the CRC-64 is of the whole object). On Kodo, \
      cat checks the length only; get checks the qetag too.

      Examples:
        kodo cat logs 2024-06-01/app.log | grep ERROR
        kodo cat --range 0-99 photos a.txt             # the first 100 bytes
        kodo cat --range=-1024 logs 2024-06-01/app.log # the last KiB
        kodo cat photos 2024/beach.jpg > beach.jpg
      """
  )

  @OptionGroup var download: DownloadOptions

  @Option(
    help: ArgumentHelp(
      "Only these bytes: START-END (both included), START- or -COUNT.", valueName: "START-END"))
  var range: String?

  @OptionGroup var object: ObjectArguments

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func execute(_ context: Context) async throws {
    let range = try self.range.map { text throws(StorageError) in try RangeText(text) }
    let (bucket, key) = try object.resolve(context)
    try await Self.stream(
      bucket: bucket, key: key, context: context, download: download, arguments: object.arguments,
      range: range)
  }

  /// Streams the object to stdout (`cat`, and `get -o -`).
  static func stream(
    bucket: String, key: String, context: Context, download: DownloadOptions, arguments: [String],
    range: RangeText? = nil
  ) async throws {
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    let details = try await NotFoundAdvice.stat(
      provider, bucket: bucket, key: key, arguments: arguments)
    let output = context.runtime.standardOutput
    let bytes = try range?.resolve(size: details.object.size)
    // The whole object is checked as it streams, where the service's digest allows it (OSS's
    // CRC-64); a range cannot be: the digest is of the whole object.
    let check = range == nil ? provider.integrityCheck(for: details) : nil
    let digest = check?.running.map(StreamedDigest.init)
    _ = try await provider.download(
      DownloadRequest(
        bucket: bucket, key: key, domain: download.choice(bucket: bucket, context: context),
        expectedSize: bytes.map { $0.upperBound - $0.lowerBound + 1 } ?? details.object.size,
        range: bytes),
      to: output, digest: digest)
    if let check, let digest, digest.text != check.expected {
      throw check.mismatch(
        digest.text, consequence: "the bytes written to stdout are not the object's")
    }
  }
}

struct Get: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "get",
    abstract: "Download an object to a file, checking its size and hash.",
    usage: ObjectArguments.usage("get", extra: ["-r BUCKET/PREFIX DIR"]),
    discussion: """
      The object is written to a new temporary file next to the destination and moved there only \
      when it is complete and its size and hash (Kodo's qetag) match, so an interrupted download \
      never leaves a truncated file under the final name, and no file or link found at the \
      destination is written through. An existing file is kept unless --force. -o - writes to \
      stdout. An object of 64 MiB or more comes as 16 MiB ranges, four at once, each written in \
      place.

      get -r BUCKET/PREFIX DIR writes every object under the prefix into DIR (made if missing; \
      the path is what follows the prefix's last /), --parallel N at a time (default 4). A file \
      already there with the object's size and hash (Kodo's qetag, OSS's CRC-64) is kept, so \
      running it again resumes; a file there that differs is kept and reported, and the exit \
      status is then 73, unless --force. A key that would land outside DIR (.., ., empty \
      segments) is reported and skipped (exit status 65). One object failing never stops the \
      others: each failure is reported, then a summary, and the exit status is the first \
      failure's. On a terminal a progress bar shows the objects and bytes done, the rate and \
      the time left.

      A character device or FIFO given to -o (/dev/null) is written into, never replaced. A \
      download cut short resumes from where it stopped.

      Examples:
        kodo get photos 2024/beach.jpg                # writes ./beach.jpg
        kodo get photos 2024/beach.jpg -o /tmp/b.jpg
        kodo get --force logs 2024-06-01/app.log
        kodo get -r --parallel 8 photos/2024/ ./photos-2024
      """
  )

  @OptionGroup var download: DownloadOptions

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp(
      "Where to write (default: the key's last path segment; a directory keeps that name; - for stdout).",
      valueName: "PATH"),
    completion: .file())
  var output: String?

  @Flag(help: "Replace an existing file (with -r: each file there that differs).")
  var force = false

  @Flag(
    name: .shortAndLong,
    help: "BUCKET/PREFIX DIR: every object under the prefix into DIR (see above).")
  var recursive = false

  @Option(
    help: ArgumentHelp("With -r: N transfers at once, 1-64 (default 4).", valueName: "N"))
  var parallel: Int?

  @OptionGroup var object: ObjectArguments

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func validate() throws {
    if let parallel {
      guard recursive else { throw ValidationError("--parallel needs -r/--recursive") }
      guard (1...64).contains(parallel) else {
        throw ValidationError("--parallel must be between 1 and 64")
      }
    }
    if recursive && output != nil {
      throw ValidationError("with -r the directory is the second argument, not -o")
    }
  }

  func execute(_ context: Context) async throws {
    if recursive {
      guard object.arguments.count == 2 else {
        throw ValidationError("get -r takes BUCKET/PREFIX DIR")
      }
      let (bucket, prefix) = try BucketPath.split(object.arguments[0], context: context)
      let provider = try context.provider()
      try provider.validateBucketName(bucket)
      try await RecursiveGet(
        provider: provider, kind: try context.providerKind(), bucket: bucket, prefix: prefix,
        directory: FilePath(object.arguments[1]),
        domain: download.choice(bucket: bucket, context: context), parallel: parallel ?? 4,
        json: context.options.json, force: force
      ).run()
      return
    }
    let (bucket, key) = try object.resolve(context)
    if output == "-" {
      try await Cat.stream(
        bucket: bucket, key: key, context: context, download: download,
        arguments: object.arguments)
      return
    }
    let destination = try destination(for: key)
    if DownloadFile.isStream(destination) {
      // A character device or a FIFO (`-o /dev/null`) is written into, never replaced.
      try await Self.stream(
        bucket: bucket, key: key, into: destination, context: context, download: download,
        arguments: object.arguments)
      return
    }
    if !force && DownloadFile.exists(destination) {
      throw StorageError(
        .invalidInput,
        "\(DisplayText(quoting: destination.string)) exists; pass --force to replace it")
    }
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    let details = try await NotFoundAdvice.stat(
      provider, bucket: bucket, key: key, arguments: object.arguments)
    try DownloadFile.makeDirectories(destination.removingLastComponent())
    // M11: a large download shows its progress (a bar on a terminal, else a plain line every
    // 10 s), as get -r does.
    let progress = TransferProgress.forTransfer(
      json: context.options.json, output: OutputStream.standardOutput())
    progress.expecting(objects: 1, bytes: details.object.size)
    defer { progress.clear() }
    let digest = try await DownloadFile.fetch(
      DownloadRequest(
        bucket: bucket, key: key, domain: download.choice(bucket: bucket, context: context),
        expectedSize: details.object.size),
      from: provider, to: destination, check: provider.integrityCheck(for: details),
      replacing: force,
      mismatch: { check, digest in
        check.mismatch(
          digest, consequence: "nothing was written to \(DisplayText(quoting: destination.string))"
        )
      },
      progress: { descriptor in
        Task {
          while !Task.isCancelled {
            progress.transferring(bytes: DownloadFile.bytesHeld(descriptor))
            try? await Task.sleep(for: .milliseconds(250))
          }
        }
      }, ranges: 4)
    progress.clear()
    if context.options.json {
      let out = OutputStream.standardOutput()
      var line = JSONLine()
      line.string("key", key)
      line.string("path", destination.string)
      line.int("size", details.object.size)
      let check = provider.integrityCheck(for: details)
      line.string(
        details.crc64 != nil && details.crc64 == check?.expected ? "crc64" : "hash", digest)
      try out.write(line)
      try out.flush()
    } else {
      Diagnostics.note(
        "wrote \(DisplayText(quoting: destination.string)) (\(details.object.size) bytes)")
    }
  }

  /// Streams the object into the character device or FIFO at `path`, opened for writing as it
  /// is (no create, no truncate), its length and digest checked as `cat` checks them.
  private static func stream(
    bucket: String, key: String, into path: FilePath, context: Context,
    download: DownloadOptions, arguments: [String]
  ) async throws {
    let descriptor: FileDescriptor
    do {
      descriptor = try FileDescriptor.open(path, .writeOnly, options: [.closeOnExec])
    } catch {
      throw StorageError(.localIO, "cannot open \(DisplayText.quoted(path.string)): \(error)")
    }
    defer { try? descriptor.close() }
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    let details = try await NotFoundAdvice.stat(
      provider, bucket: bucket, key: key, arguments: arguments)
    let check = provider.integrityCheck(for: details)
    let digest = check?.running.map(StreamedDigest.init)
    _ = try await provider.download(
      DownloadRequest(
        bucket: bucket, key: key, domain: download.choice(bucket: bucket, context: context),
        expectedSize: details.object.size),
      to: descriptor.rawValue, digest: digest)
    if let check, let digest, digest.text != check.expected {
      throw check.mismatch(digest.text)
    }
    Diagnostics.note(
      "wrote \(DisplayText(quoting: path.string)) (\(details.object.size) bytes)")
  }

  /// `-o PATH` (a directory keeps the key's file name), else the key's last path segment.
  private func destination(for key: String) throws -> FilePath {
    let name = DownloadFile.defaultName(for: key)
    func requireName() throws -> String {
      guard let name else {
        throw StorageError(
          .invalidInput,
          "the key \(DisplayText(quoting: key)) gives no usable file name (it is empty, ends in '/', or its last segment is '.' or '..'); name the file with -o PATH"
        )
      }
      return name
    }
    guard let output, !output.isEmpty else { return FilePath(try requireName()) }
    let path = FilePath(output)
    if DownloadFile.isDirectory(path) { return path.appending(try requireName()) }
    return path
  }
}
