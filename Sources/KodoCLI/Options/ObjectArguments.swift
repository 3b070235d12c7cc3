import ArgumentParser
import StorageCore

/// `[BUCKET] KEY` for commands about one object (stat, cat, get).
struct ObjectArguments: ParsableArguments {
  @Argument(
    help: ArgumentHelp(
      "[BUCKET] KEY: the bucket (default: the configured one) and the key.", valueName: "BUCKET KEY"
    ))
  var arguments: [String] = []

  /// The bucket (or the configured default) and a non-empty key.
  ///
  /// The count is checked here rather than in `validate()`, so that a mistyped option that took
  /// a value is reported as the unknown option it is, with ArgumentParser's suggestion.
  func resolve(_ context: Context) throws -> (bucket: String, key: String) {
    let (bucket, key) = try context.bucketAndKey(arguments)
    guard !key.isEmpty else { throw StorageError(.invalidInput, "the key is empty") }
    return (bucket, key)
  }
}

/// `BUCKET[/PREFIX]`: a bucket and a key prefix in one argument.
enum BucketPath {
  /// Splits at the first `/`; an empty or missing target is the configured bucket's root.
  static func split(_ target: String?, context: Context) throws -> (bucket: String, prefix: String)
  {
    guard let given = target, !given.isEmpty else { return (try context.bucket(nil), "") }
    let target = try context.strippingScheme(given)
    if let slash = target.firstIndex(of: "/") {
      return (String(target[..<slash]), String(target[target.index(after: slash)...]))
    }
    return (target, "")
  }
}
