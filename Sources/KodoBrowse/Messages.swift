package import StorageCore

/// What happens to the browser: keys, a new size, and the results of effects. Results carry the
/// id of the request that produced them; a result whose id is no longer awaited is dropped.
package enum Message: Sendable {
  /// Begin: load what the start location needs.
  case start
  case key(Key)
  case resize(Size)
  case bucketsLoaded(id: Int, Result<[Bucket], Failure>)
  case pageLoaded(id: Int, Result<ListPage, Failure>)
  case statLoaded(id: Int, Result<ObjectDetails, Failure>)
  /// A copy was made (or could not be): the text, or why not.
  case copied(what: String, Result<String, Failure>)
  /// A one-object download's (`s`/`S`) progress and end, by request id.
  case downloadProgress(id: Int, name: String, bytes: Int64, total: Int64, seconds: Double)
  case downloadFinished(id: Int, name: String, Result<String, Failure>)
  /// A folder's (or the marked entries') download: how far it has come, and how it ended.
  case treeProgress(id: Int, TreeProgress)
  case treeFinished(id: Int, Result<TreeSummary, Failure>)
  /// A range of an object, for the pager.
  case rangeLoaded(id: Int, Result<[UInt8], Failure>)
  /// The entries of a local directory, for Tab completion.
  case localListed(id: Int, Result<[LocalEntry], Failure>)
  /// How many objects are under the folders a delete asks about.
  case objectsCounted(id: Int, Result<Int, Failure>)
  /// A delete's end (`d`).
  case deleteFinished(id: Int, DeleteReport)
  /// A move's end (`r`).
  case moveFinished(id: Int, MoveResult)
  /// An upload's progress (`u`), with the objects it uploaded since the last one.
  case uploadProgress(id: Int, UploadProgress)
  /// An upload's end.
  case uploadFinished(id: Int, UploadSummary)
  /// A diagnostic (a warning, a note) for the status line, already escaped.
  case note(String)
}

/// A failure's message, already fit to show.
package struct Failure: Error, Sendable, Equatable {
  /// The message.
  package var message: String

  /// A failure with a message.
  package init(_ message: String) { self.message = message }
}

/// What `update` asks the effects runner to do.
package enum Effect: Sendable, Equatable {
  case listBuckets(id: Int)
  case listPage(id: Int, bucket: String, prefix: String, marker: String?)
  case stat(id: Int, bucket: String, key: String)
  /// Stops the request with this id; its result, if it still comes, is dropped.
  case cancel(id: Int)
  /// Copies text to the clipboard (OSC 52).
  case copy(what: String, text: String)
  /// Signs a download URL for the key and copies it.
  case copyURL(bucket: String, key: String)
  /// Downloads the object to `path` (`nil`: its name in the current directory);
  /// `cancel(id:)` stops it (its temporary file removed).
  case download(id: Int, bucket: String, key: String, size: Int64, path: String?)
  /// Downloads `entries` of `bucket` (a key, or a folder's prefix ending in `/`: everything
  /// under it) into the current directory as `get -r` does, each at its path below `base`
  /// (the folder shown). `cancel(id:)` stops it.
  case downloadTree(id: Int, bucket: String, base: String, entries: [String])
  /// Fetches a range of an object (at most 64 KiB) into memory, for the pager.
  case fetchRange(id: Int, bucket: String, key: String, range: ClosedRange<Int64>)
  /// Lists a local directory (for Tab completion of a local path).
  case listLocal(id: Int, directory: String)
  /// Counts the objects under `folders` (prefixes ending in `/`) of `bucket`, as `rm -r`
  /// lists them; the count comes as `objectsCounted`.
  case countObjects(id: Int, bucket: String, folders: [String])
  /// Deletes `objects` (keys) and `folders` (prefixes ending in `/`, everything under each, as
  /// `rm -r`) of `bucket`, as `rm` does; the end comes as `deleteFinished`.
  case delete(id: Int, bucket: String, objects: [String], folders: [String])
  /// Moves an object within `bucket` as `mv` does (`replace`: as `mv --force`); the end comes
  /// as `moveFinished`.
  case move(id: Int, bucket: String, from: String, to: String, replace: Bool)
  /// Uploads through `put`'s code (`replace`: as `put --force`): progress comes as
  /// `uploadProgress`, the end as `uploadFinished`; `cancel(id:)` stops it.
  case upload(id: Int, bucket: String, plan: UploadPlan, replace: Bool)
  /// `--pick`: the chosen object; the runner prints it and quits.
  case pick(bucket: String, key: String)
  /// Leaves with this exit status.
  case quit(Int32)
}
