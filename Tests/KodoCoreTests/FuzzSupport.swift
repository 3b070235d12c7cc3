import Foundation
import KodoTestSupport
import PropertyBased
import Testing

@testable import KodoCore
@testable import StorageCore

// Building blocks of the fuzz property tests: random answers written as JSON in many equivalent
// ways, byte-level mutations, and the check that every answer decoder either returns a value or
// throws a `protocolError`.

extension RandomNumberGenerator {
  /// A Unicode scalar, weighted towards ASCII, JSON's special characters and astral planes.
  mutating func scalar() -> Unicode.Scalar {
    let value: UInt32
    switch int(0...5) {
    case 0: value = UInt32.random(in: 0...0x1F, using: &self)
    case 1: value = pick([0x22, 0x5C, 0x2F, 0x3A, 0x7F, 0x2028, 0xFEFF, 0xFFFD, 0x10FFFF, 0x1F600])
    case 2: value = UInt32.random(in: 0x80...0xFFFF, using: &self)
    case 3: value = UInt32.random(in: 0x10000...0x10FFFF, using: &self)
    default: value = UInt32.random(in: 0x20...0x7E, using: &self)
    }
    return Unicode.Scalar(value) ?? "?"
  }

  /// A string of up to `length` arbitrary scalars.
  mutating func text(_ length: ClosedRange<Int> = 0...12) -> String {
    var text = ""
    for _ in 0..<int(length) { text.unicodeScalars.append(scalar()) }
    return text
  }

  /// Any JSON value, nested at most `depth` deep; numbers include forms no Int64 holds.
  mutating func jsonValue(depth: Int) -> JSONValue {
    switch int(0...(depth > 0 ? 7 : 4)) {
    case 0: return .null
    case 1: return .bool(chance(50))
    case 2: return .number(numberText())
    case 3, 4: return .string(text())
    case 5: return .array((0..<int(0...4)).map { _ in jsonValue(depth: depth - 1) })
    default:
      return .object(
        (0..<int(0...4)).map { _ in JSONValue.Member(text(0...6), jsonValue(depth: depth - 1)) })
    }
  }

  /// Valid JSON number text of every shape.
  mutating func numberText() -> String {
    switch int(0...4) {
    case 0: return pick(["0", "-0", "1e400", "-1e400", "1e-400", "0.5", "-1.25E+3", "1E2"])
    case 1: return String(repeating: "9", count: int(19...400))
    case 2: return integerText(int64())
    default:
      return String(Int.random(in: -999...999, using: &self)) + "." + String(int(0...999))
        + "e" + String(int(-20...20))
    }
  }

  /// `value` written in one of the JSON forms that mean exactly that integer: `12`, `12.0`,
  /// `1.2e1`, `120e-1`, `-0`.
  mutating func integerText(_ value: Int64) -> String {
    let sign = value < 0 ? "-" : (value == 0 && chance(10) ? "-" : "")
    let digits = String(value.magnitude)
    switch int(0...6) {
    case 0: return sign + digits + "." + String(repeating: "0", count: int(1...3))
    case 1: return sign + digits + pick(["e0", "E+0", "e-0", "E00"])
    case 2:
      // Move the decimal point left and compensate with the exponent: 1234 → 1.234e3.
      let split = int(1...digits.count)
      let head = digits.prefix(split)
      let tail = digits.dropFirst(split)
      let point = tail.isEmpty ? "" : "." + String(tail)
      return sign + String(head) + point + (chance(50) ? "e" : "E+") + String(tail.count)
    case 3 where value != 0:
      // No leading zeros: `0000e-3` is not JSON.
      let zeros = int(1...4)
      return sign + digits + String(repeating: "0", count: zeros) + "e-" + String(zeros)
    case 4:
      let trailing = digits.reversed().prefix(while: { $0 == "0" }).count
      guard trailing > 0, value != 0 else { return sign + digits }
      let cut = int(1...trailing)
      return sign + String(digits.dropLast(cut)) + "e" + String(cut)
    default: return sign + digits
    }
  }
}

// MARK: Writing JSON in varied but equivalent ways

/// Writes a `JSONValue` as JSON text with random whitespace and random (valid) escapes, so that
/// every output means the same value.
struct VariedJSONWriter {
  var bytes: [UInt8] = []
  /// Percent chance of whitespace at each token boundary.
  var spacing: Int
  /// Percent chance of escaping a character that needs no escape.
  var escaping: Int

  static func write(_ value: JSONValue, using rng: inout some RandomNumberGenerator) -> [UInt8] {
    var writer = VariedJSONWriter(
      spacing: rng.pick([0, 0, 10, 50]), escaping: rng.pick([0, 0, 5, 30, 100]))
    writer.space(&rng)
    writer.value(value, &rng)
    writer.space(&rng)
    return writer.bytes
  }

  mutating func space(_ rng: inout some RandomNumberGenerator) {
    guard rng.chance(spacing) else { return }
    for _ in 0..<rng.int(1...3) { bytes.append(rng.pick(Array(" \n\r\t".utf8))) }
  }

  mutating func value(_ value: JSONValue, _ rng: inout some RandomNumberGenerator) {
    switch value {
    case .null: bytes += Array("null".utf8)
    case .bool(let flag): bytes += Array((flag ? "true" : "false").utf8)
    case .number(let text): bytes += Array(text.utf8)
    case .string(let text): string(text, &rng)
    case .array(let values):
      bytes.append(UInt8(ascii: "["))
      for (index, element) in values.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        space(&rng)
        self.value(element, &rng)
        space(&rng)
      }
      if values.isEmpty { space(&rng) }
      bytes.append(UInt8(ascii: "]"))
    case .object(let members):
      bytes.append(UInt8(ascii: "{"))
      for (index, member) in members.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        space(&rng)
        string(member.name, &rng)
        space(&rng)
        bytes.append(UInt8(ascii: ":"))
        space(&rng)
        self.value(member.value, &rng)
        space(&rng)
      }
      if members.isEmpty { space(&rng) }
      bytes.append(UInt8(ascii: "}"))
    }
  }

  mutating func string(_ text: String, _ rng: inout some RandomNumberGenerator) {
    bytes.append(UInt8(ascii: "\""))
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": bytes += Array(#"\""#.utf8)
      case "\\": bytes += Array(#"\\"#.utf8)
      case "/" where rng.chance(escaping): bytes += Array(#"\/"#.utf8)
      case "\n" where rng.chance(50): bytes += Array(#"\n"#.utf8)
      case "\t" where rng.chance(50): bytes += Array(#"\t"#.utf8)
      case "\u{08}" where rng.chance(50): bytes += Array(#"\b"#.utf8)
      case "\u{0C}" where rng.chance(50): bytes += Array(#"\f"#.utf8)
      case "\r" where rng.chance(50): bytes += Array(#"\r"#.utf8)
      default:
        if scalar.value < 0x20 || rng.chance(escaping) {
          for unit in String(scalar).utf16 {
            let hex = String(unit, radix: 16, uppercase: rng.chance(50))
            bytes += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
          }
        } else {
          bytes += Array(String(scalar).utf8)
        }
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }
}

// MARK: Answers as models and as JSON

/// A member whose name no decoder knows, with any value.
func unknownMember(_ rng: inout some RandomNumberGenerator) -> JSONValue.Member {
  JSONValue.Member("x-fuzz-" + rng.text(0...4), rng.jsonValue(depth: 4))
}

/// The members of an object after irrelevant changes: shuffled, unknown members mixed in, and
/// (with `shadowing`) a duplicate with another value placed before a known member, which the
/// later one must override.
func scrambled(
  _ members: [JSONValue.Member], _ rng: inout some RandomNumberGenerator, shadowing: Bool = true
) -> JSONValue {
  var output = members
  if rng.chance(50) { output.shuffle(using: &rng) }
  for _ in 0..<rng.pick([0, 0, 1, 3]) {
    output.insert(unknownMember(&rng), at: rng.int(0...output.count))
  }
  if shadowing, rng.chance(30), !output.isEmpty {
    let index = rng.int(0...(output.count - 1))
    if let earlier = decoy(output[index].name, &rng) {
      output.insert(JSONValue.Member(output[index].name, earlier), at: index)
    }
  }
  return .object(output)
}

/// An integer member in a random exact form, or `null`/absent when the decoder's default is
/// the same.
func integerMember(
  _ name: String, _ value: Int64?, default: Int64? = nil,
  _ rng: inout some RandomNumberGenerator
) -> [JSONValue.Member] {
  guard let value else { return rng.chance(50) ? [] : [.init(name, .null)] }
  if value == `default`, rng.chance(50) { return rng.chance(50) ? [] : [.init(name, .null)] }
  return [.init(name, .number(rng.integerText(value)))]
}

func stringMember(
  _ name: String, _ value: String?, nullMeansEmpty: Bool = false,
  _ rng: inout some RandomNumberGenerator
) -> [JSONValue.Member] {
  guard let value else { return rng.chance(50) ? [] : [.init(name, .null)] }
  if nullMeansEmpty, value.isEmpty, rng.chance(50) {
    return rng.chance(50) ? [] : [.init(name, .null)]
  }
  return [.init(name, .string(value))]
}

/// A random object called `key`, with every optional field present or absent at random.
func randomEntry(_ rng: inout some RandomNumberGenerator, key: String) -> ObjectEntry {
  ObjectEntry(
    key: key, size: rng.int64(), putTime: Timestamp(hundredNanoseconds: rng.int64()),
    storageClass: .kodo(type: Int(rng.chance(50) ? Int64(rng.int(0...6)) : rng.int64())),
    mimeType: rng.chance(20) ? "" : rng.text(), hash: rng.chance(20) ? "" : rng.text(),
    status: ObjectStatus.kodo(code: Int(rng.chance(50) ? Int64(rng.int(0...2)) : rng.int64())),
    md5: rng.chance(50) ? rng.text() : nil, endUser: rng.chance(50) ? rng.text() : nil,
    meta: rng.chance(50)
      ? UserMetadata((0..<rng.int(0...3)).map { _ in (rng.text(), rng.text()) })
      : nil,
    restoreStatus: rng.chance(50) ? RestoreStatus.kodo(code: Int(rng.int64())) : nil,
    lastModified: rng.chance(50) ? Timestamp(hundredNanoseconds: rng.int64()) : nil,
    parts: rng.chance(30) ? (0..<rng.int(0...4)).map { _ in rng.int64() } : nil)
}

private func code(_ status: ObjectStatus?) -> Int64 {
  switch status {
  case .enabled?, nil: 0
  case .disabled?: 1
  case .unknown(let code)?: Int64(code)
  }
}

private func code(_ status: RestoreStatus) -> Int64 {
  switch status {
  case .restoring: 1
  case .restored: 2
  case .other(let name): Int64(name.dropFirst("status_".count)) ?? 0
  }
}

/// A value of the right type for `name` but different from the one written, for shadowing.
private func decoy(_ name: String, _ rng: inout some RandomNumberGenerator) -> JSONValue? {
  switch name {
  case "key", "hash", "mimeType", "md5", "endUser", "marker", "region", "name", "tbl":
    return .string(rng.text())
  case "fsize", "putTime", "type", "status", "restoreStatus", "lastModify", "expiration",
    "transitionToIA", "transitionToArchiveIR", "transitionToARCHIVE", "transitionToArchive",
    "transitionToDeepArchive", "ttl", "ctime", "perm":
    return .number(String(rng.int64()))
  case "x-qn-meta": return .object([.init(rng.text(), .string(rng.text()))])
  case "parts", "commonPrefixes", "items": return .array([])
  default: return nil
  }
}

/// The members an entry is written with.
func entryMembers(_ entry: ObjectEntry, _ rng: inout some RandomNumberGenerator)
  -> [JSONValue.Member]
{
  var members: [JSONValue.Member] = []
  members += integerMember("fsize", entry.size, default: 0, &rng)
  members += stringMember("hash", entry.hash, nullMeansEmpty: true, &rng)
  members += stringMember("mimeType", entry.mimeType, nullMeansEmpty: true, &rng)
  members += integerMember("putTime", entry.putTime.hundredNanoseconds, default: 0, &rng)
  members += integerMember("type", Int64(entry.storageClass.kodoType ?? 0), default: 0, &rng)
  members += integerMember("status", code(entry.status), default: 0, &rng)
  members += stringMember("md5", entry.md5, &rng)
  members += stringMember("endUser", entry.endUser, &rng)
  if let meta = entry.meta {
    members.append(.init("x-qn-meta", .object(meta.map { .init($0.key, .string($0.value)) })))
  }
  members += integerMember("restoreStatus", entry.restoreStatus.map(code), &rng)
  members += integerMember("lastModify", entry.lastModified?.hundredNanoseconds, &rng)
  if let parts = entry.parts {
    members.append(.init("parts", .array(parts.map { .number(rng.integerText($0)) })))
  } else if rng.chance(30) {
    members.append(.init("parts", .null))
  }
  return members
}

/// A stat answer and what it must decode to (for the key `statKey`).
let statKey = "fuzz/key"

func randomStatAnswer(_ rng: inout some RandomNumberGenerator) -> (JSONValue, ObjectDetails) {
  let withKey = rng.chance(20)
  let key = withKey ? rng.text() : statKey
  let entry = randomEntry(&rng, key: key)
  var stat = ObjectDetails(object: entry)
  var members = entryMembers(entry, &rng)
  if withKey { members.append(.init("key", .string(entry.key))) }
  let lifecycle = [
    "expiration", "transitionToIA", "transitionToArchiveIR", "transitionToARCHIVE",
    "transitionToDeepArchive",
  ]
  for name in lifecycle where rng.chance(40) {
    let value = rng.int64()
    let written = name == "transitionToARCHIVE" && rng.chance(50) ? "transitionToArchive" : name
    members += integerMember(written, value, &rng)
    switch name {
    case "expiration": stat.expiration = value
    case "transitionToIA": stat.transitionToIA = value
    case "transitionToArchiveIR": stat.transitionToArchiveIR = value
    case "transitionToARCHIVE": stat.transitionToArchive = value
    default: stat.transitionToDeepArchive = value
    }
  }
  return (scrambled(members, &rng), stat)
}

/// A list answer and the page it must decode to.
func randomListAnswer(_ rng: inout some RandomNumberGenerator) -> (JSONValue, ListPage) {
  let marker = rng.chance(30) ? "" : rng.text(1...20)
  var page = ListPage(nextMarker: marker.isEmpty ? nil : marker)
  page.commonPrefixes = (0..<rng.pick([0, 0, 1, 3])).map { _ in rng.text() }
  for _ in 0..<rng.pick([0, 1, 2, 5]) {
    let key = rng.text()
    page.items.append(randomEntry(&rng, key: key))
  }
  var members: [JSONValue.Member] = []
  members += stringMember("marker", marker, nullMeansEmpty: true, &rng)
  if !page.commonPrefixes.isEmpty || rng.chance(50) {
    members.append(.init("commonPrefixes", .array(page.commonPrefixes.map { .string($0) })))
  } else if rng.chance(50) {
    members.append(.init("commonPrefixes", .null))
  }
  let items = page.items.map { entry -> JSONValue in
    var fields = entryMembers(entry, &rng)
    fields.append(.init("key", .string(entry.key)))
    return scrambled(fields, &rng)
  }
  if !items.isEmpty || rng.chance(50) {
    members.append(.init("items", .array(items)))
  } else if rng.chance(50) {
    members.append(.init("items", .null))
  }
  return (scrambled(members, &rng), page)
}

/// A `/v4/query` answer and the regions it must decode to.
func randomRegionAnswer(_ rng: inout some RandomNumberGenerator) -> (JSONValue, [RegionHosts]) {
  var regions: [RegionHosts] = []
  var hosts: [JSONValue] = []
  for _ in 0..<rng.int(0...3) {
    var region = RegionHosts(region: rng.text(0...4), ttl: rng.int64(), services: [:])
    var members: [JSONValue.Member] = [
      .init("region", .string(region.region)), .init("ttl", .number(rng.integerText(region.ttl))),
    ]
    for service in ["rs", "rsf", "uc", "api", "io_src", rng.text(1...4)]
    where rng.chance(50) && region.services[service] == nil && service != "region"
      && service != "ttl"
    {
      let domains = (0..<rng.int(0...3)).map { _ in rng.text(1...10) }
      let old = (0..<rng.int(0...2)).map { _ in rng.text(1...10) }
      region.services[service] = domains + old
      members.append(
        .init(
          service,
          scrambled(
            [
              .init("domains", .array(domains.map { .string($0) })),
              .init("old", .array(old.map { .string($0) })),
            ], &rng)))
    }
    regions.append(region)
    hosts.append(.object(members.shuffled(using: &rng)))
  }
  return (scrambled([.init("hosts", .array(hosts))], &rng), regions)
}

/// A `/v2/buckets` answer and the buckets it must decode to.
func randomBucketsAnswer(_ rng: inout some RandomNumberGenerator) -> (JSONValue, [Bucket]) {
  var buckets: [Bucket] = []
  var values: [JSONValue] = []
  for _ in 0..<rng.int(0...4) {
    var bucket = Bucket(name: rng.text(1...12))
    var members: [JSONValue.Member] = [.init(rng.pick(["tbl", "name"]), .string(bucket.name))]
    if rng.chance(50) {
      bucket.region = rng.text(0...4)
      members.append(.init("region", .string(bucket.region ?? "")))
    }
    if rng.chance(50) {
      bucket.createdAt = rng.int64()
      members.append(.init("ctime", .number(rng.integerText(bucket.createdAt ?? 0))))
    } else if rng.chance(50) {
      members.append(.init("ctime", .string(rng.text())))
    }
    if rng.chance(50) {
      let perm = rng.pick([Int64(0), 1, 2, rng.int64()])
      bucket.shared = perm == 1 ? "rd" : perm == 2 ? "rw" : nil
      members.append(.init("perm", .number(rng.integerText(perm))))
    }
    if rng.chance(50) {
      let isPrivate = rng.chance(50)
      bucket.isPrivate = isPrivate
      members.append(
        .init("private", rng.chance(50) ? .bool(isPrivate) : .number(isPrivate ? "1" : "0")))
    }
    if rng.chance(50) {
      let remark = rng.chance(30) ? "" : rng.text()
      bucket.remark = remark.isEmpty ? nil : remark
      members.append(.init("remark", .string(remark)))
    }
    buckets.append(bucket)
    values.append(scrambled(members, &rng, shadowing: false))
  }
  return (.array(values), buckets)
}

// MARK: Byte-level mutations

/// Bytes that make or break JSON: structure, escapes, number parts, invalid UTF-8.
private let junkBytes: [UInt8] =
  Array(#"{}[]":,\/-+.eE0123456789 tfnu"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xED, 0xFF]

/// Snippets that probe specific reader paths: bad escapes, lone surrogates, invalid UTF-8,
/// deep nesting, numbers no Int64 holds.
private let junkSnippets: [[UInt8]] =
  [
    #"\uD800"#, #"\uDC00"#, #"\uD83D\u0041"#, #"\uD83D\uDE00"#, #"\u00"#, #"\x"#, #"\"#, #"""#,
    "1e400", "-0", "1.5", "99999999999999999999", "-9223372036854775809", "0x10", "NaN", "nul",
    "tru", "[[[[[[[[", "]]]]", "{\"a\":", ",,", "null", "\u{FEFF}",
  ].map { Array($0.utf8) } + [
    [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF],
  ]

/// One to four random byte-level mutations of `bytes`.
func mutated(_ bytes: [UInt8], _ rng: inout some RandomNumberGenerator) -> [UInt8] {
  var output = bytes
  for _ in 0..<rng.int(1...4) {
    let position = rng.int(0...output.count)
    switch rng.int(0...8) {
    case 0 where position < output.count:
      output[position] ^= UInt8(1) << UInt8(rng.int(0...7))
    case 1 where position < output.count:
      output[position] = rng.pick(junkBytes)
    case 2:
      output.insert(contentsOf: (0..<rng.int(1...4)).map { _ in rng.pick(junkBytes) }, at: position)
    case 3:
      output.insert(contentsOf: rng.pick(junkSnippets), at: position)
    case 4:
      let end = min(output.count, position + rng.int(1...16))
      output.removeSubrange(position..<end)
    case 5:
      let end = min(output.count, position + rng.int(1...32))
      let copy = Array(output[position..<end])
      output.insert(contentsOf: copy, at: end)
    case 6:
      output.removeSubrange(position...)
    case 7:
      output.insert(
        contentsOf: Array(repeating: rng.pick(Array("[{".utf8)), count: rng.pick([10, 300, 5000])),
        at: position)
    default:
      // Move a chunk elsewhere.
      let end = min(output.count, position + rng.int(1...16))
      let chunk = Array(output[position..<end])
      output.removeSubrange(position..<end)
      output.insert(contentsOf: chunk, at: rng.int(0...output.count))
    }
  }
  return output
}

// MARK: Running every decoder

/// Whether `bytes` is one JSON value, as the reader every decoder uses sees it.
func isJSON(_ bytes: [UInt8]) -> Bool {
  var reader = JSONReader(bytes)
  do {
    _ = try JSONValue.read(&reader)
    try reader.expectEnd()
    return true
  } catch {
    return false
  }
}

let fuzzRequestID = "fuzz-request"

/// One answer decoder as the client runs it.
struct AnswerDecoder: Sendable {
  var what: String
  var run: @Sendable ([UInt8]) throws(StorageError) -> Void

  init<T>(
    _ what: String, _ body: @escaping @Sendable (inout JSONReader) throws(JSONReader.Failure) -> T
  ) {
    self.what = what
    self.run = { (bytes) throws(StorageError) in
      _ = try Decode.answer(what, bytes, requestID: fuzzRequestID, body)
    }
  }

  static let all: [AnswerDecoder] = [
    AnswerDecoder("list") { (reader) throws(JSONReader.Failure) in try Decode.listPage(&reader) },
    AnswerDecoder("stat") { (reader) throws(JSONReader.Failure) in
      try Decode.objectFields(&reader, key: statKey)
    },
    AnswerDecoder("bucket list") { (reader) throws(JSONReader.Failure) in
      try Decode.bucketNames(&reader)
    },
    AnswerDecoder("bucket list v2") { (reader) throws(JSONReader.Failure) in
      try Decode.bucketsV2(&reader)
    },
    AnswerDecoder("bucket info") { (reader) throws(JSONReader.Failure) in
      try JSONValue.read(&reader)
    },
    AnswerDecoder("domain list") { (reader) throws(JSONReader.Failure) in
      try Decode.domains(&reader)
    },
    AnswerDecoder("region query") { (reader) throws(JSONReader.Failure) in
      try Decode.regions(&reader)
    },
    AnswerDecoder("list (keys only)") { (reader) throws(JSONReader.Failure) in
      try Decode.listPage(&reader, keysOnly: true)
    },
  ]
}

/// Decodes `bytes` as `decoder`'s answer and checks the outcome is a value or a `protocolError`
/// that names a byte inside the answer; returns whether a value came out.
///
/// Plain comparisons, with an issue recorded only on failure: some tests call this 10⁴ times.
@discardableResult
func expectValueOrProtocolError(
  _ decoder: AnswerDecoder, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
  do {
    try decoder.run(bytes)
    return true
  } catch {
    let prefix = "cannot read Kodo's \(decoder.what) answer: "
    let suffix = " of \(bytes.count)"
    var offset: Int?
    if error.message.hasPrefix(prefix), error.message.hasSuffix(suffix),
      let range = error.message.range(of: " at byte ", options: .backwards)
    {
      offset = Int(error.message[range.upperBound...].dropLast(suffix.count))
    }
    let wellFormed =
      error.kind == .protocolError && error.status == 200 && error.requestID == fuzzRequestID
      && offset.map { (0...bytes.count).contains($0) } == true
    if !wellFormed {
      Issue.record(
        "not a protocolError naming a byte of the answer: \(error) for \(debugText(bytes))",
        sourceLocation: sourceLocation)
    }
    return false
  }
}

/// Runs every decoder over `bytes`: none crashes, each returns a value or a `protocolError`, and
/// none accepts bytes that are not JSON.
func expectEveryDecoderSafe(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
  let json = isJSON(bytes)
  for decoder in AnswerDecoder.all {
    let accepted = expectValueOrProtocolError(decoder, bytes, sourceLocation: sourceLocation)
    if accepted && !json {
      Issue.record(
        "the \(decoder.what) decoder accepted text that is not JSON: \(debugText(bytes))",
        sourceLocation: sourceLocation)
    }
  }
  _ = Decode.errorMessage(bytes)
  if let value = try? JSONValue.parse(String(decoding: bytes, as: UTF8.self)) {
    #expect(
      (try? JSONValue.parse(value.asciiCompactText)) == value, sourceLocation: sourceLocation)
  }
}

/// Bytes for a failure message: UTF-8 where it is, `\xNN` elsewhere, cut at 300 bytes.
func debugText(_ bytes: [UInt8]) -> String {
  let shown = bytes.prefix(300)
  var text = ""
  if let valid = String(validating: Array(shown), as: UTF8.self) {
    text = valid
  } else {
    for byte in shown {
      text += byte < 0x80 ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }
  }
  return text.debugDescription + (bytes.count > 300 ? "… (\(bytes.count) bytes)" : "")
}
