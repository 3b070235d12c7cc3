import ArgumentParser
import StorageCore

struct Stat: KodoCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show every field the service keeps about one object.",
    discussion: """
      Times are shown both in local time and exactly as the service stores them (Kodo's putTime \
      in 100 ns units).

      Examples:
        kodo stat photos 2024/beach.jpg
        kodo stat 2024/beach.jpg              # in the configured default bucket
        kodo stat --json photos 2024/beach.jpg | jq .size
      """
  )

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  @OptionGroup var object: ObjectArguments

  func execute(_ context: Context) async throws {
    let (bucket, key) = try object.resolve(context)
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    let details = try await NotFoundAdvice.stat(
      provider, bucket: bucket, key: key, arguments: object.arguments)
    let output = OutputStream.standardOutput()
    if context.options.json {
      var line = JSONLine()
      details.appendJSONFields(to: &line)
      try output.write(line)
    } else {
      for row in StatRenderer.describe(details, bucket: bucket) { try output.line(row) }
    }
    try output.flush()
  }
}

/// What to say when an object is not found: it may be a folder, or a bucket and a key written as
/// one argument.
enum NotFoundAdvice {
  /// `provider.stat`, with a not-found error that says what to do.
  static func stat(
    _ provider: any StorageProvider, bucket: String, key: String, arguments: [String]
  ) async throws(StorageError) -> ObjectDetails {
    do {
      return try await provider.stat(bucket: bucket, key: key)
    } catch  where error.kind == .notFound {
      var failure = error
      if key.hasSuffix("/") {
        failure.message +=
          "; \(DisplayText(quoting: key)) names a folder: list it with kodo ls \(bucket)/\(key)"
      } else if arguments.count == 1, let slash = key.firstIndex(of: "/") {
        let first = key[..<slash]
        let rest = key[key.index(after: slash)...]
        failure.message +=
          "; to name a bucket and a key, give them as two arguments: \(first) \(rest)"
      }
      throw failure
    }
  }

  /// A listing of a bucket that does not exist, when a default bucket is configured: the
  /// argument may have been meant as a folder of the default bucket.
  static func forListing(
    _ failure: CommandFailure, bucket: String, target: String?, context: Context
  ) -> CommandFailure {
    guard case .noSuchBucket? = failure.error.hint, let fallback = context.configuration.bucket,
      fallback != bucket, let path = target
    else { return failure }
    var advised = failure
    advised.notes.append(
      "if \(path) is a folder of the default bucket \(fallback), list it with: kodo ls \(fallback)/\(path)"
    )
    return advised
  }
}
