import KodoBrowse
import StorageCore

func object(_ key: String, size: Int64 = 100, seconds: Int64 = 1_715_514_660) -> ObjectEntry {
  ObjectEntry(
    key: key, size: size, putTime: Timestamp(unixSeconds: seconds),
    storageClass: StorageClass(name: "standard", serviceName: "0"))
}

/// The list request effects among `effects`.
func listRequests(_ effects: [Effect]) -> [(id: Int, marker: String?)] {
  effects.compactMap {
    if case .listPage(let id, _, _, let marker) = $0 { return (id, marker) }
    return nil
  }
}

extension State {
  /// A browser in the folder `prefix` of `bucket`, its first page `page` loaded.
  static func showing(
    _ page: ListPage, bucket: String = "b", prefix: String = "",
    size: Size = Size(width: 80, height: 24), color: Bool = true
  ) -> State {
    var state = State(location: .folder(bucket: bucket, prefix: prefix), size: size, color: color)
    let id = listRequests(state.update(.start))[0].id
    _ = state.update(.pageLoaded(id: id, .success(page)))
    return state
  }

  mutating func keys(_ text: String) -> [Effect] {
    var effects: [Effect] = []
    for character in text { effects += update(.key(.character(character))) }
    return effects
  }
}

/// Strings in the order of their UTF-8 bytes (the services' key order).
func byBytes(_ strings: [String]) -> [String] {
  strings.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
}

/// A one-object download's effect without its request id.
struct SentDownload: Equatable {
  var bucket: String
  var key: String
  var size: Int64
  var path: String?
}

/// The one-object downloads among `effects`, or `nil` when `effects` holds anything else.
func downloads(_ effects: [Effect]) -> [SentDownload]? {
  var found: [SentDownload] = []
  for effect in effects {
    guard case .download(_, let bucket, let key, let size, let path) = effect else { return nil }
    found.append(SentDownload(bucket: bucket, key: key, size: size, path: path))
  }
  return found
}
