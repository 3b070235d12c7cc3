import ArgumentParser
import StorageCore

/// The folder a `-r` verb works on (`rm -r`, `mv -r`, `cp -r`): the folder rule, the listing
/// that streams its objects, and the confirmation before changing them.
struct RemoteFolder {
  let provider: any StorageProvider
  let bucket: String
  /// The folder's prefix, ending in `/`, or empty for the whole bucket.
  let prefix: String
  let pageSize: Int

  /// The folder a user's `PREFIX` means: `a` is `a/`, never `a-other/`; empty is the bucket.
  static func prefix(_ given: String) -> String {
    given.isEmpty || KeySegments.endsWithSlash(given) ? given : given + "/"
  }

  /// The folder `given` means in `bucket`, listed `pageSize` entries a request (by default the
  /// most both services give).
  init(provider: any StorageProvider, bucket: String, given: String, pageSize: Int = 1000) {
    self.provider = provider
    self.bucket = bucket
    self.prefix = Self.prefix(given)
    self.pageSize = pageSize
  }

  /// `bucket "b"` for a whole bucket, else `"b/prefix/"`.
  var place: DisplayText {
    prefix.isEmpty
      ? "bucket " + DisplayText(quoting: bucket) : DisplayText(quoting: bucket + "/" + prefix)
  }

  /// Calls `body` with each page of the folder's objects, in key order, while the listing
  /// streams; with `keysOnly`, only their keys are read (the other fields keep their defaults).
  func scan(keysOnly: Bool = false, _ body: ([ObjectEntry]) async throws -> Void) async throws {
    try await RecursiveScan(
      provider: provider, bucket: bucket, prefix: prefix, pageSize: pageSize, parallel: nil,
      keysOnly: keysOnly
    ).run { objects, _ in
      try await body(objects)
      return true
    }
  }

  /// What the user said to changing the folder's objects.
  enum Agreement {
    case agreed
    case declined
    /// There is nothing in the folder: nothing was asked.
    case empty
  }

  /// Counts the folder's objects and asks whether to `verb` them (`delete`, `move`, …), with
  /// `suffix` after the place (` to "b/x/"`); a whole bucket is confirmed by typing its name.
  /// Without a terminal: the usage error (64) naming `--yes`, before anything is listed.
  func confirm(verb: String, gerund: String, suffix: DisplayText = "") async throws -> Agreement {
    let refusal: DisplayText = "\(gerund) everything in " + place
    try Confirm.requireTerminal(refusal)
    var count = 0
    let progress = Progress.forScan()
    try await scan(keysOnly: true) { objects in
      count += objects.count
      progress.add(objects.count)
    }
    progress.clear()
    if count == 0 { return .empty }
    let objects: DisplayText = count == 1 ? "1 object" : "\(count) objects"
    let agreed =
      prefix.isEmpty
      ? try Confirm.ask(
        "\(verb) all " + objects + " in " + place + suffix + "?", answer: .typing(bucket),
        refusal: refusal)
      : try Confirm.ask(
        "\(verb) " + objects + " under " + place + suffix + "?", answer: .yes, refusal: refusal)
    return agreed ? .agreed : .declined
  }
}
