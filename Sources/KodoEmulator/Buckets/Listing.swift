import KodoCore
import NIOCore
import StorageCore

/// One `/list` request's parameters, decoded.
struct ListQuery {
  var prefix: [UInt8] = []
  var delimiter: [UInt8] = []
  /// The key or common prefix the previous page ended with.
  var marker: [UInt8]?
  var limit = 1_000
}

/// One page of a listing, as the emulator computes it (named apart from StorageCore's
/// `ListPage`, the client's decoded page).
struct ListSlice {
  /// The objects on the page, in key order: index and key.
  var items: [(index: Int, key: [UInt8])] = []
  /// Common prefixes on the page, in order.
  var commonPrefixes: [[UInt8]] = []
  /// Where the next page starts, or `nil` when the listing is complete.
  var nextMarker: [UInt8]?
}

/// Kodo's listing semantics over any sorted source.
///
/// Entries are objects and, with a delimiter, common prefixes (a key's prefix up to and including
/// the first delimiter after `prefix`); both count toward `limit`. The marker is the last entry
/// returned; the next page holds the entries after it. A page that reaches the end of the
/// listing has no marker.
enum Listing {
  static func page(of source: some ObjectSource, _ query: ListQuery) -> ListSlice {
    var page = ListSlice()
    let count = source.count
    var index = source.lowerBound(query.prefix)
    if let marker = query.marker {
      index = max(index, source.lowerBound(marker, strictly: true))
    }
    var entries = 0
    var last: [UInt8]?
    while index < count && entries < query.limit {
      let key = source.key(at: index)
      guard ByteOrder.hasPrefix(key, query.prefix) else { break }
      if let end = delimiterEnd(in: key, after: query.prefix.count, delimiter: query.delimiter) {
        let commonPrefix = Array(key[0..<end])
        index = groupEnd(of: commonPrefix, in: source, from: index + 1)
        // The group the marker names was returned on the previous page.
        if let marker = query.marker, ByteOrder.compare(commonPrefix, marker) <= 0 { continue }
        page.commonPrefixes.append(commonPrefix)
        last = commonPrefix
      } else {
        page.items.append((index, key))
        last = key
        index += 1
      }
      entries += 1
    }
    if index < count, ByteOrder.hasPrefix(source.key(at: index), query.prefix), let last {
      page.nextMarker = last
    }
    return page
  }

  /// The end of the common prefix `key` has: the index just past the first `delimiter` found at
  /// or after byte `start`, or `nil`.
  private static func delimiterEnd(in key: [UInt8], after start: Int, delimiter: [UInt8]) -> Int? {
    guard let first = delimiter.first, key.count - start >= delimiter.count else { return nil }
    var position = start
    while position + delimiter.count <= key.count {
      if key[position] == first {
        var matched = true
        for offset in 1..<delimiter.count where key[position + offset] != delimiter[offset] {
          matched = false
          break
        }
        if matched { return position + delimiter.count }
      }
      position += 1
    }
    return nil
  }

  /// The first index at or after `start` whose key does not start with `prefix`; every key in
  /// `start - 1 ..< result` has it.
  private static func groupEnd(of prefix: [UInt8], in source: some ObjectSource, from start: Int)
    -> Int
  {
    var low = start
    var high = source.count
    while low < high {
      let middle = low + (high - low) / 2
      if ByteOrder.hasPrefix(source.key(at: middle), prefix) {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low
  }
}

/// The opaque list marker: URL-safe base64 of `{"c":0,"k":"<last entry>"}`, as Kodo writes it.
enum ListMarker {
  static func encode(_ key: [UInt8]) -> String {
    var buffer = ByteBuffer()
    buffer.writeStaticString("{\"c\":0,\"k\":")
    buffer.writeJSONString(key)
    buffer.writeStaticString("}")
    return URLSafeBase64.encode(buffer.readableBytesView)
  }

  /// The entry a marker names, or `nil` when it is not a marker this server wrote.
  static func decode(_ marker: String) -> [UInt8]? {
    guard let bytes = URLSafeBase64.decode(marker),
      let text = String(validating: bytes, as: UTF8.self),
      let value = try? JSONValue.parse(text),
      case .object(let members) = value
    else { return nil }
    var key: String?
    var hasCursor = false
    for member in members {
      switch (member.name, member.value) {
      case ("k", .string(let text)): key = text
      case ("c", .number): hasCursor = true
      default: return nil
      }
    }
    guard hasCursor, let key else { return nil }
    return Array(key.utf8)
  }
}
