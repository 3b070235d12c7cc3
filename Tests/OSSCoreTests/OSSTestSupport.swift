import Foundation
import OSSCore
import PropertyBased
import StorageCore
import Testing

/// A generator of values made from the property checker's random numbers, so a failure's seed
/// reproduces the value.
func randomInput<T: Sendable>(
  _ make: @escaping @Sendable (inout Xoshiro) -> T
) -> Generator<T, Shrink.None<T>> {
  Generator(run: { rng in
    // A concrete generator seeded from the checker's: generic code takes it without opening
    // an `inout` existential (which crashes the 6.3 compiler).
    var seeded = seededGenerator(rng.next())
    return make(&seeded)
  })
}

/// Iterations scaled by `OSS_FUZZ_SCALE` (default 1) for longer sessions.
func iterations(_ count: Int) -> Int {
  count * max(1, ProcessInfo.processInfo.environment["OSS_FUZZ_SCALE"].flatMap { Int($0) } ?? 1)
}

/// The pieces hostile keys are made of: what breaks encoders (space, `+`, `%`, `&`, `=`, `?`,
/// `#`, `~`, `/`, dot segments), what breaks terminals and XML (controls, `<`, `&`, quotes),
/// and what breaks UTF-8 handling (CJK, emoji, combining marks, bidi controls).
let hostileKeyPieces: [String] = [
  "a", "Z", "0", "9", "-", "_", ".", "~", "/", " ", "+", "%", "%2F", "%20", "%zz", "&", "=", "?",
  "#", "'", "\"", "<", ">", "&amp;", "]]>", "\u{01}", "\u{1B}[31m", "\t", "\n", "\r", "\u{7F}",
  "中", "文件", "年", "😀", "👩‍👩‍👧", "e\u{301}", "\u{202E}", "\u{FEFF}", "..", "./", "../", "//",
]

extension RandomNumberGenerator {
  mutating func below(_ bound: Int) -> Int { Int.random(in: 0..<max(1, bound), using: &self) }

  mutating func element<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

  /// One of `sources` changed in one to five places: a token of `tokens` inserted, a few bytes
  /// removed, a byte replaced, or a run of its own bytes copied elsewhere.
  mutating func mutated(_ sources: [[UInt8]], inserting tokens: [[UInt8]]) -> [UInt8] {
    var bytes = element(sources)
    for _ in 0...below(4) {
      let at = below(bytes.count + 1)
      switch below(4) {
      case 0: bytes.insert(contentsOf: element(tokens), at: at)
      case 1 where at < bytes.count:
        bytes.removeSubrange(at..<min(bytes.count, at + 1 + below(8)))
      case 2 where at < bytes.count: bytes[at] = UInt8.random(in: 0...255, using: &self)
      default:
        bytes.insert(
          contentsOf: bytes[at..<min(bytes.count, at + below(40))], at: below(bytes.count))
      }
    }
    return bytes
  }

  /// A key of up to `pieces` hostile pieces (never empty).
  mutating func hostileKey(pieces: Int = 8) -> String {
    var key = ""
    for _ in 0...below(pieces) { key += element(hostileKeyPieces) }
    return key
  }
}

/// A deterministic random number generator for reproducible inputs.
func seededGenerator(_ seed: UInt64) -> Xoshiro {
  Xoshiro(seed: (seed, seed &* 0x9E37_79B9_7F4A_7C15, ~seed, seed ^ 0xBF58_476D_1CE4_E5B9))
}

/// A ListObjects(V2) page of `count` objects and some prefixes with hostile keys, as OSS would
/// describe them.
func randomListing(
  count: Int, version2: Bool, encoded: Bool = true, using rng: inout some RandomNumberGenerator
) -> OSSListObjectsResult {
  var objects: [OSSObjectSummary] = []
  objects.reserveCapacity(count)
  let classes = ["Standard", "IA", "Archive", "ColdArchive", "DeepColdArchive", "FutureClass"]
  for index in 0..<count {
    let key = "photos/2023 年/" + String(index) + "-" + rng.hostileKey()
    objects.append(
      OSSObjectSummary(
        key: key,
        lastModified: Timestamp(
          hundredNanoseconds: Int64(rng.below(2_000_000_000)) * 10_000_000
            + Int64(rng.below(1000)) * 10_000, fractionDigits: 3),
        size: rng.below(4) == 0 ? Int64.max - Int64(rng.below(9)) : Int64(rng.below(1 << 30)),
        etag: String(format: "%016llX%016llX", rng.next(), rng.next()),
        type: rng.element(["Normal", "Multipart", "Appendable", "Symlink"]),
        storageClass: rng.element(classes),
        owner: rng.below(3) == 0 ? OSSOwner(id: "1234567890", displayName: "owner") : nil,
        restore: rng.below(10) == 0 ? OSSRestore(ongoing: false, expiry: 1_600_951_233) : nil))
  }
  let prefixes = (0..<rng.below(20)).map { _ in "photos/2023 年/" + rng.hostileKey() + "/" }
  var result = OSSListObjectsResult(
    name: "examplebucket", prefix: "photos/2023 年/", delimiter: rng.below(2) == 0 ? "/" : "",
    maxKeys: 1000, encodingType: encoded ? "url" : nil, isTruncated: true, objects: objects,
    commonPrefixes: prefixes)
  if version2 {
    result.continuationToken = "ChR0ZXN0L2EgYitjLnR4dBAA"
    result.nextContinuationToken = "CgJiYw+/=="
    result.startAfter = ""
    result.keyCount = Int64(objects.count + prefixes.count)
  } else {
    result.marker = "photos/2023 年/+%"
    result.nextMarker = objects.last?.key ?? "z"
  }
  return result
}
