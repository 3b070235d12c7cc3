import ArgumentParser
import Foundation
import StorageCore
import SystemPackage

struct URLCommand: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "url",
    abstract: "Print a download URL for an object: signed, unless --public.",
    discussion: """
      Every URL is signed to work until its deadline, whether the bucket is private or not; \
      --public prints the plain URL for public buckets. The key is percent-encoded in the path \
      (every byte except A-Z a-z 0-9 - _ . ~ /) and the signature covers exactly the printed \
      URL. With --domain or a configured domain, url makes no network request.

      Examples:
        kodo url photos 2024/beach.jpg
        kodo url --expires 7d photos 2024/beach.jpg
        kodo url photos a.jpg b.jpg c.jpg       # one URL per key, in order
        kodo url --public --domain https://cdn.example.com photos 2024/beach.jpg
        kodo ls -r -0 photos/2024/ | tr '\\0' '\\n' | kodo url --stdin photos
      """
  )

  @OptionGroup var download: DownloadOptions

  @Option(
    help: ArgumentHelp(
      "How long the URL works: seconds, or 90s, 15m, 2h, 7d (default 3600).", valueName: "DURATION")
  )
  var expires: String?

  @Option(
    help: ArgumentHelp(
      "When the URL stops working, in Unix seconds (instead of --expires).",
      valueName: "UNIX_SECONDS"))
  var deadline: Int64?

  @Flag(help: "An unsigned URL, for public buckets.")
  var `public` = false

  @Flag(help: "Read keys from stdin, one per line; print one URL per line in the same order.")
  var stdin = false

  @Argument(
    help: ArgumentHelp(
      "[BUCKET] KEY, BUCKET KEY... (one URL per key, in order), or only [BUCKET] with --stdin.",
      valueName: "BUCKET KEY"),
    completion: ShellCompletion.objectArguments)
  var arguments: [String] = []

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func validate() throws {
    try Expiry.validate(deadline: deadline, expires: expires)
    if self.public && (deadline != nil || expires != nil) {
      throw ValidationError(
        "--public URLs are not signed and never expire; drop --expires/--deadline")
    }
  }

  func execute(_ context: Context) async throws {
    let expirySeconds = try DurationParser.seconds(expires ?? "3600")
    let bucket: String
    var keys: [String] = []
    if stdin {
      guard arguments.count <= 1 else {
        throw ValidationError("with --stdin, give only the bucket (or nothing)")
      }
      bucket = try context.bucket(arguments.first)
    } else {
      (bucket, keys) = try ObjectArguments.bucketAndKeys(arguments, context: context)
    }
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    let signer = try await provider.linkSigner(
      bucket: bucket, domain: download.choice(bucket: bucket, context: context),
      signed: !self.public)
    DownloadOptions.noteChoice(signer.domain, bucket: bucket)
    let deadline =
      try self.public
      ? nil
      : Expiry.deadline(deadline, expiresIn: expirySeconds, now: signer.now(), signed: "a URL")
    let output = OutputStream.standardOutput()
    let json = context.options.json
    func emit(_ key: String) throws {
      let url = try signer.url(key, deadline)
      if json {
        var line = JSONLine()
        line.string("key", key)
        line.string("url", url)
        line.int("deadline", deadline)
        try output.write(line)
      } else {
        try output.line(DisplayText(escaping: url))
      }
    }
    if !stdin {
      for key in keys { try emit(key) }
    } else {
      var reader = LineReader(fileDescriptor: context.runtime.standardInput)
      var number = 0
      while let line = try reader.next() {
        number += 1
        guard !line.isEmpty else {
          try output.flush()
          throw StorageError(
            .invalidInput, "line \(number) of stdin is empty; every line must be a key")
        }
        try emit(line)
      }
    }
    try output.flush()
  }
}

/// Reads lines from a file descriptor in large blocks; each line exactly as written, without its
/// `\n` (or `\r\n`).
struct LineReader {
  let fileDescriptor: Int32
  private var buffer: [UInt8] = []
  private var start = 0
  private var atEnd = false

  /// What ends a line: a newline (a `\r` before it is dropped too), or NUL for `-0` input.
  let separator: UInt8

  init(fileDescriptor: Int32, separator: UInt8 = UInt8(ascii: "\n")) {
    self.fileDescriptor = fileDescriptor
    self.separator = separator
  }

  mutating func next() throws(StorageError) -> String? {
    while true {
      if let newline = buffer[start...].firstIndex(of: separator) {
        var end = newline
        if separator == UInt8(ascii: "\n") && end > start && buffer[end - 1] == UInt8(ascii: "\r") {
          end -= 1
        }
        let line = try decode(buffer[start..<end])
        start = newline + 1
        return line
      }
      if atEnd {
        guard start < buffer.count else { return nil }
        let line = try decode(buffer[start...])
        start = buffer.count
        return line
      }
      if start > 0 {
        buffer.removeFirst(start)
        start = 0
      }
      var chunk = [UInt8](repeating: 0, count: 256 * 1024)
      let count: Int
      do {
        count = try chunk.withUnsafeMutableBytes {
          try FileDescriptor(rawValue: fileDescriptor).read(into: $0)
        }
      } catch {
        throw StorageError(.localIO, "cannot read stdin: \(error)")
      }
      if count == 0 { atEnd = true } else { buffer.append(contentsOf: chunk[..<count]) }
    }
  }

  /// The line's text. `String(validating:)` on a slice runs the standard library's unspecialised
  /// generic validator (a metadata look-up per line); decoding from the buffer is specialised, and
  /// decoding repairs invalid UTF-8, which changes the bytes: equal bytes mean valid input.
  private func decode(_ bytes: ArraySlice<UInt8>) throws(StorageError) -> String {
    let text = bytes.withUnsafeBufferPointer { bytes -> String? in
      let text = String(decoding: bytes, as: UTF8.self)
      let ascii = bytes.reduce(0 as UInt8) { $0 | $1 } < 0x80
      return ascii || text.utf8.elementsEqual(bytes) ? text : nil
    }
    guard let text else {
      throw StorageError(.invalidInput, "a key on stdin is not valid UTF-8")
    }
    return text
  }
}
