import ArgumentParser
import StorageCore

/// `[BUCKET] KEY` for commands about one object (stat, cat, get).
struct ObjectArguments: ParsableArguments {
  @Argument(
    help: ArgumentHelp(
      "The bucket (default: the configured one) and the key, or BUCKET/KEY in one argument (also oss://BUCKET/KEY).",
      valueName: "BUCKET KEY"
    ),
    completion: ShellCompletion.objectArguments)
  var arguments: [String] = []

  /// The usage lines of `command` (the generated one would read `[<BUCKET KEY> ...]`, which
  /// none of them takes): `[BUCKET] KEY` or `BUCKET/KEY`, with `many` also `BUCKET KEY...`,
  /// then `extra` forms.
  static func usage(_ command: String, many: Bool = false, extra: [String] = []) -> String {
    let forms = ["[BUCKET] KEY", "BUCKET/KEY"] + (many ? ["BUCKET KEY..."] : []) + extra
    return forms.map { "kodo \(command) [<options>] \($0)" }.joined(separator: "\n")
  }

  /// The bucket (or the configured default) and a non-empty key.
  ///
  /// The count is checked here rather than in `validate()`, so that a mistyped option that took
  /// a value is reported as the unknown option it is, with ArgumentParser's suggestion.
  func resolve(_ context: Context) throws -> (bucket: String, key: String) {
    let (bucket, key) = try context.bucketAndKey(arguments)
    guard !key.isEmpty else { throw StorageError(.invalidInput, "the key is empty") }
    return (bucket, key)
  }

  /// The bucket and one or more non-empty keys: `KEY` (in the configured bucket) or
  /// `BUCKET KEY…`.
  func resolveMany(_ context: Context) throws -> (bucket: String, keys: [String]) {
    try Self.bucketAndKeys(arguments, context: context)
  }

  /// `KEY` (in the configured bucket) or `BUCKET KEY…`, every key non-empty.
  static func bucketAndKeys(_ arguments: [String], context: Context) throws -> (
    bucket: String, keys: [String]
  ) {
    let bucket: String
    let keys: [String]
    switch arguments.count {
    case 0: throw ValidationError("expected [BUCKET] KEY, or BUCKET KEY...")
    case 1:
      let (named, key) = try context.object(arguments[0])
      (bucket, keys) = (named, [key])
    default:
      (bucket, keys) = (try context.strippingScheme(arguments[0]), Array(arguments.dropFirst()))
    }
    if let empty = keys.firstIndex(where: \.isEmpty) {
      throw StorageError(
        .invalidInput,
        keys.count == 1 ? "the key is empty" : "key \(empty + 1) of \(keys.count) is empty")
    }
    return (bucket, keys)
  }
}

/// `BUCKET[/PREFIX]`: a bucket and a key prefix in one argument.
enum BucketPath {
  /// Splits at the first `/`; an empty or missing target is the configured bucket's root.
  static func split(_ target: String?, context: Context) throws -> (bucket: String, prefix: String)
  {
    guard let given = target, !given.isEmpty else { return (try context.bucket(nil), "") }
    let target = try context.strippingScheme(given)
    if let (bucket, prefix) = KeySegments.splitAtFirstSlash(target) {
      return (String(bucket), String(prefix))
    }
    return (target, "")
  }
}
