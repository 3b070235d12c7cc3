import StorageCore

/// A bucket as the service holds it.
struct BucketStore: Sendable {
  /// Where the objects are: a fixed source (read-only), or a store that takes writes.
  enum Objects: Sendable {
    case fixed(any ObjectSource)
    case writable(ObjectStore)
  }

  var name: String
  var isPrivate: Bool
  /// Creation time, Unix seconds.
  var ctime: Int64
  var objects: Objects
  /// How the start-up output describes the source.
  var summary: String

  init(name: String, isPrivate: Bool, ctime: Int64, objects: Objects, summary: String) {
    self.name = name
    self.isPrivate = isPrivate
    self.ctime = ctime
    self.objects = objects
    self.summary = summary
  }

  init(
    name: String, isPrivate: Bool, ctime: Int64, source: any ObjectSource, summary: String
  ) {
    self.init(
      name: name, isPrivate: isPrivate, ctime: ctime, objects: .fixed(source), summary: summary)
  }

  /// The objects now: take it once per request, and address objects by index only in it (a
  /// writable bucket's next snapshot may differ).
  var source: any ObjectSource {
    switch objects {
    case .fixed(let source): source
    case .writable(let store): store.snapshot()
    }
  }

  /// The store, when the bucket takes writes.
  var writable: ObjectStore? {
    if case .writable(let store) = objects { return store }
    return nil
  }
}
