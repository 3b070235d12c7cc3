import ArgumentParser
import StorageCore

struct Stat: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "stat",
    abstract: "Show every field the service keeps about an object (or several).",
    usage: ObjectArguments.usage("stat", many: true),
    discussion: """
      Times are shown both in local time and exactly as the service stores them (Kodo's putTime \
      in 100 ns units). With several keys, one record per key in the order given; a key that \
      does not exist is reported on stderr, the others are still shown, and the exit status is \
      66.

      Examples:
        kodo stat photos 2024/beach.jpg
        kodo stat 2024/beach.jpg              # in the configured default bucket
        kodo stat --json photos 2024/beach.jpg | jq .size
        kodo stat --json photos a.txt b.txt c.txt
      """
  )

  @OptionGroup var object: ObjectArguments

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func execute(_ context: Context) async throws {
    let (bucket, keys) = try object.resolveMany(context)
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    let output = OutputStream.standardOutput()
    let json = context.options.json
    var missing = 0
    var printed = 0
    for key in keys {
      let result = await Self.result {
        () throws(StorageError) in
        try await NotFoundAdvice.stat(
          provider, bucket: bucket, key: key, arguments: object.arguments)
      }
      let details: ObjectDetails
      switch result {
      case .success(let found):
        details = found
      case .failure(let error) where error.kind == .notFound && keys.count > 1:
        // One missing key among several: said on stderr, the others still printed.
        try output.flush()
        _ = ErrorReporting.report(error, notes: [], json: json)
        missing += 1
        continue
      case .failure(let error):
        throw error
      }
      if json {
        var line = JSONLine()
        details.appendJSONFields(to: &line)
        try output.write(line)
      } else {
        if printed > 0 { try output.line("") }
        for row in StatRenderer.describe(details, bucket: bucket) { try output.line(row) }
      }
      printed += 1
      try output.flush()
    }
    try output.flush()
    if missing > 0 { throw ExitCode(66) }
  }

  private static func result(
    _ body: () async throws(StorageError) -> ObjectDetails
  ) async -> Result<ObjectDetails, StorageError> {
    do {
      return .success(try await body())
    } catch {
      return .failure(error)
    }
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
      if KeySegments.endsWithSlash(key) {
        failure.message +=
          "; \(DisplayText(quoting: key)) names a folder: list it with kodo ls \(bucket)/\(key)"
      } else if arguments.count == 1, let (first, rest) = KeySegments.splitAtFirstSlash(key) {
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
