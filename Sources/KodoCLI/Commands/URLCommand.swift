import ArgumentParser
import Foundation
import KodoCore
import StorageCore

/// How `url`, `cat` and `get` pick the domain and sign.
struct DownloadOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Download base URL, scheme included (default: the config's domains[BUCKET], else the bucket's first bound domain).",
      valueName: "BASE_URL"))
  var domain: String?

  func validate() throws {
    if let domain {
      let parts = URLParts(domain)
      guard parts.scheme == "http" || parts.scheme == "https", !parts.host.isEmpty,
        parts.query == nil
      else {
        throw ValidationError(
          "--domain must be a base URL with http:// or https://, such as https://cdn.example.com")
      }
    }
  }

  /// Resolves the domain, saying on stderr which one was picked when the bucket has several.
  func resolve(bucket: String, context: Context, client: KodoClient) async throws -> DownloadDomain
  {
    let picked = try await client.downloadDomain(
      bucket: bucket, explicit: domain, configured: context.configuration.domains[bucket])
    if picked.source == .bound && !picked.alternatives.isEmpty {
      Diagnostics.note(
        "bucket \(DisplayText.escaped(bucket)) has \(picked.alternatives.count + 1) domains; using \(picked.baseURL) (choose with --domain)"
      )
    }
    return picked
  }
}

struct URLCommand: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "url",
    abstract: "Print a download URL for an object, signed for private buckets unless --public.",
    discussion: """
      The key is percent-encoded in the path (every byte except A-Z a-z 0-9 - _ . ~ /) and the \
      signature covers exactly the printed URL. With --domain or a configured domain, url makes \
      no network request.

      Examples:
        kodo url photos 2024/beach.jpg
        kodo url --expires 7d photos 2024/beach.jpg
        kodo url --public --domain https://cdn.example.com photos 2024/beach.jpg
        kodo ls -r -0 photos/2024/ | tr '\\0' '\\n' | kodo url --stdin photos
      """
  )

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo
  @OptionGroup var download: DownloadOptions

  @Option(
    help: ArgumentHelp(
      "How long the URL works: seconds, or 90s, 15m, 2h, 7d (default 3600).", valueName: "DURATION")
  )
  var expires: String = "3600"

  @Option(
    help: ArgumentHelp(
      "When the URL stops working, in Unix seconds (overrides --expires).",
      valueName: "UNIX_SECONDS"))
  var deadline: Int64?

  @Flag(help: "An unsigned URL, for public buckets.")
  var `public` = false

  @Flag(help: "Read keys from stdin, one per line; print one URL per line in the same order.")
  var stdin = false

  @Argument(
    help: ArgumentHelp("[BUCKET] KEY, or only [BUCKET] with --stdin.", valueName: "BUCKET KEY"))
  var arguments: [String] = []

  func validate() throws {
    if stdin {
      guard arguments.count <= 1 else {
        throw ValidationError("with --stdin, give only the bucket (or nothing)")
      }
    } else {
      guard (1...2).contains(arguments.count) else {
        throw ValidationError("expected [BUCKET] KEY")
      }
    }
    if let deadline, deadline <= 0 {
      throw ValidationError("--deadline must be a positive Unix time")
    }
  }

  func execute(_ context: Context) async throws {
    let expirySeconds = try DurationParser.seconds(expires)
    let bucket: String
    var key: String?
    if stdin {
      bucket = try context.bucket(arguments.first)
    } else {
      (bucket, key) = try context.bucketAndKey(arguments)
      guard key?.isEmpty == false else { throw StorageError(.invalidInput, "the key is empty") }
    }
    try BucketName.validate(bucket)
    let client = try context.client()
    let domain = try await download.resolve(bucket: bucket, context: context, client: client)
    let deadline = self.public ? nil : (self.deadline ?? client.deadline(expiresIn: expirySeconds))
    let output = OutputStream(fileDescriptor: 1)
    let json = context.options.json
    func emit(_ key: String) throws(StorageError) {
      let url = client.downloadURL(domain: domain.baseURL, key: key, deadline: deadline)
      if json {
        var line = JSONLine()
        line.string("key", key)
        line.string("url", url)
        line.int("deadline", deadline)
        try output.write(bytes: line.finish())
      } else {
        try output.write(url + "\n")
      }
    }
    if let key {
      try emit(key)
    } else {
      var reader = LineReader(fileDescriptor: 0)
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

  init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

  mutating func next() throws(StorageError) -> String? {
    while true {
      if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
        var end = newline
        if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
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
      let count = chunk.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw StorageError(.localIO, "cannot read stdin: \(String(cString: strerror(errno)))")
      }
      if count == 0 { atEnd = true } else { buffer.append(contentsOf: chunk[..<count]) }
    }
  }

  private func decode(_ bytes: ArraySlice<UInt8>) throws(StorageError) -> String {
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw StorageError(.invalidInput, "a key on stdin is not valid UTF-8")
    }
    return text
  }
}
