import Foundation
import KodoTestSupport
import PropertyBased
import Testing

@testable import KodoCore
@testable import StorageCore

/// Fuzzing Kodo's answer decoders: valid answers written in every equivalent way decode to the
/// same value, and anything else (mutated answers, random bytes, wrong types, deep nesting) is a
/// `protocolError`, never a crash.
@Suite("Fuzzing the answer decoders")
struct FuzzAnswerPropertyTests {
  static func decode<T>(
    _ bytes: [UInt8], _ body: (inout JSONReader) throws(JSONReader.Failure) -> T
  ) throws(StorageError) -> T {
    try Decode.answer("fuzz", bytes, requestID: fuzzRequestID, body)
  }

  static func list(_ bytes: [UInt8]) throws(StorageError) -> ListPage {
    try decode(bytes) { (reader) throws(JSONReader.Failure) in try Decode.listPage(&reader) }
  }

  static func stat(_ bytes: [UInt8]) throws(StorageError) -> ObjectDetails {
    try decode(bytes) { (reader) throws(JSONReader.Failure) in
      try Decode.objectFields(&reader, key: statKey)
    }
  }

  // MARK: Valid answers after irrelevant changes

  static func regions(_ bytes: [UInt8]) throws(StorageError) -> [RegionHosts] {
    try decode(bytes) { (reader) throws(JSONReader.Failure) in try Decode.regions(&reader) }
  }

  static func bucketsV2(_ bytes: [UInt8]) throws(StorageError) -> [Bucket] {
    try decode(bytes) { (reader) throws(JSONReader.Failure) in try Decode.bucketsV2(&reader) }
  }

  static func bucketNames(_ bytes: [UInt8]) throws(StorageError) -> [String] {
    try decode(bytes) { (reader) throws(JSONReader.Failure) in try Decode.bucketNames(&reader) }
      .map(\.name)
  }

  static func domains(_ bytes: [UInt8]) throws(StorageError) -> [String] {
    try decode(bytes) { (reader) throws(JSONReader.Failure) in try Decode.domains(&reader) }
  }

  /// Expects `decode(bytes)` to give `expected`, showing the bytes when it does not.
  static func expectDecodes<T: Equatable>(
    _ bytes: [UInt8], _ expected: T, _ decode: ([UInt8]) throws(StorageError) -> T,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    do {
      let value = try decode(bytes)
      #expect(value == expected, "\(debugText(bytes))", sourceLocation: sourceLocation)
    } catch {
      Issue.record("\(error) for \(debugText(bytes))", sourceLocation: sourceLocation)
    }
  }

  // MARK: Valid answers after irrelevant changes

  @Test func listAnswersDecodeAfterIrrelevantChanges() async {
    let answers = fuzzInput { rng in
      let (json, page) = randomListAnswer(&rng)
      return (VariedJSONWriter.write(json, using: &rng), page)
    }
    await seededCheck(count: fuzzCount(300), input: answers) { answer in
      Self.expectDecodes(answer.0, answer.1, Self.list)
    }
  }

  @Test func statAnswersDecodeAfterIrrelevantChanges() async {
    let answers = fuzzInput { rng in
      let (json, stat) = randomStatAnswer(&rng)
      return (VariedJSONWriter.write(json, using: &rng), stat)
    }
    await seededCheck(count: fuzzCount(300), input: answers) { answer in
      Self.expectDecodes(answer.0, answer.1, Self.stat)
    }
  }

  @Test func regionBucketAndDomainAnswersDecodeAfterIrrelevantChanges() async {
    await seededCheck(count: fuzzCount(200), input: fuzzInput { rng in rng.next() }) { seed in
      var rng = SplitMix64(seed: seed)
      let (regionJSON, regions) = randomRegionAnswer(&rng)
      Self.expectDecodes(VariedJSONWriter.write(regionJSON, using: &rng), regions, Self.regions)

      let (bucketJSON, buckets) = randomBucketsAnswer(&rng)
      Self.expectDecodes(VariedJSONWriter.write(bucketJSON, using: &rng), buckets, Self.bucketsV2)

      let names = (0..<rng.int(0...4)).map { _ in rng.text() }
      let nameBytes = VariedJSONWriter.write(.array(names.map { .string($0) }), using: &rng)
      Self.expectDecodes(nameBytes, names, Self.bucketNames)

      let domains = (0..<rng.int(0...4)).map { _ in rng.text(1...10) }
      let domainValues = domains.map { domain -> JSONValue in
        rng.chance(50)
          ? .string(domain)
          : scrambled([.init("domain", .string(domain))], &rng, shadowing: false)
      }
      Self.expectDecodes(
        VariedJSONWriter.write(.array(domainValues), using: &rng), domains, Self.domains)
    }
  }

  @Test func anyJSONValueReadsBackFromAnyWriting() async {
    let values = fuzzInput { rng in
      let value = rng.jsonValue(depth: 5)
      return (VariedJSONWriter.write(value, using: &rng), value)
    }
    await seededCheck(count: fuzzCount(300), input: values) { input in
      let (bytes, value) = input
      var reader = JSONReader(bytes)
      #expect((try? JSONValue.read(&reader)) == value, "\(debugText(bytes))")
      #expect((try? reader.expectEnd()) != nil)
      #expect((try? JSONValue.parse(value.asciiCompactText)) == value)
    }
  }

  @Test func integersReadExactlyInEveryIntegralForm() async {
    let numbers = fuzzInput { rng in
      let value = rng.int64()
      return (value, rng.integerText(value))
    }
    await seededCheck(count: fuzzCount(500), input: numbers) { input in
      let (value, text) = input
      var reader = JSONReader(Array(text.utf8))
      #expect((try? reader.readInt64()) == value, "\(text)")
      #expect(reader.index == text.utf8.count)
    }
  }

  // MARK: Anything else is a protocolError

  @Test func mutatedAnswersGiveAValueOrAProtocolError() async {
    await seededCheck(count: fuzzCount(400), input: fuzzInput { rng in rng.next() }) { seed in
      var rng = SplitMix64(seed: seed)
      let json: JSONValue
      switch rng.int(0...3) {
      case 0: json = randomListAnswer(&rng).0
      case 1: json = randomStatAnswer(&rng).0
      case 2: json = randomRegionAnswer(&rng).0
      default: json = randomBucketsAnswer(&rng).0
      }
      let bytes = mutated(VariedJSONWriter.write(json, using: &rng), &rng)
      expectEveryDecoderSafe(bytes)
    }
  }

  @Test func randomBytesGiveAValueOrAProtocolError() async {
    await seededCheck(count: fuzzCount(300), input: Gen.uint8().array(of: 0...200)) { bytes in
      expectEveryDecoderSafe(bytes)
    }
  }

  @Test func randomTextGivesAValueOrAProtocolError() async {
    let jsonish = Gen<Character?>.element(of: Array(#"{}[]":,\ -0123456789.eEtruefalsn"#))
      .map { $0 ?? " " }
    await seededCheck(
      count: fuzzCount(300), input: Gen.oneOf(keyCharacter, jsonish).string(of: 0...80)
    ) {
      text in
      expectEveryDecoderSafe(Array(text.utf8))
    }
  }

  /// Foundation's parser is an independent judge of what is JSON. It differs by design on four
  /// points, left out here: it refuses numbers no Double holds (`1e400`), takes a trailing
  /// comma (`[1,]`), skips a byte-order mark, and guesses UTF-16 from NUL bytes at the start.
  /// (Nesting differs past 256 levels, which these inputs never reach while staying valid.)
  /// Whether a `,` is followed, after whitespace, by `]` or `}` (outside strings or not: this
  /// only decides which inputs to leave out).
  static func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
    var afterComma = false
    for byte in bytes {
      switch byte {
      case UInt8(ascii: ","): afterComma = true
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): continue
      case UInt8(ascii: "]"),
        UInt8(ascii: "}") where afterComma:
        return true
      default: afterComma = false
      }
    }
    return false
  }

  @Test func readerAgreesWithFoundationOnWhatIsJSON() async {
    await seededCheck(count: fuzzCount(300), input: fuzzInput { rng in rng.next() }) { seed in
      var rng = SplitMix64(seed: seed)
      let json: JSONValue
      switch rng.int(0...3) {
      case 0: json = randomListAnswer(&rng).0
      case 1: json = randomStatAnswer(&rng).0
      case 2: json = randomRegionAnswer(&rng).0
      default: json = rng.jsonValue(depth: 5)
      }
      let written = VariedJSONWriter.write(json, using: &rng)
      let bytes = rng.chance(20) ? written : mutated(written, &rng)
      guard !bytes.prefix(4).contains(0), !bytes.starts(with: [0xEF, 0xBB, 0xBF]) else { return }
      var foundation = true
      do {
        _ = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
      } catch {
        if "\(error)".contains("not representable") { return }
        foundation = false
      }
      if foundation && Self.hasTrailingComma(bytes) { return }
      #expect(isJSON(bytes) == foundation, "\(debugText(bytes))")
    }
  }

  @Test func everyTruncationOfAnAnswerIsAProtocolError() async {
    await seededCheck(count: fuzzCount(25), input: fuzzInput { rng in rng.next() }) { seed in
      var rng = SplitMix64(seed: seed)
      let listBytes = VariedJSONWriter.write(randomListAnswer(&rng).0, using: &rng)
      let statBytes = VariedJSONWriter.write(randomStatAnswer(&rng).0, using: &rng)
      for (bytes, decoder) in [
        (listBytes, AnswerDecoder.all[0]), (statBytes, AnswerDecoder.all[1]),
      ] {
        // Every proper prefix of one object lacks at least its closing brace. Every length for
        // answers up to 400 bytes; 400 random lengths of larger ones (reading is linear, so all
        // lengths of a large answer would be quadratic).
        let end = (bytes.lastIndex(of: UInt8(ascii: "}")) ?? 0)
        let lengths = end < 400 ? Array(0...end) : (0..<400).map { _ in rng.int(0...end) }
        for length in lengths where expectValueOrProtocolError(decoder, Array(bytes[..<length])) {
          Issue.record("a truncated answer was read: \(debugText(Array(bytes[..<length])))")
        }
      }
    }
  }

  /// Values a field must not have: other JSON types, numbers that are not 64-bit integers, and
  /// text that is not JSON at all.
  static let notAString = ["0", "-1", "true", "false", "[]", "{}", #"["s"]"#, #"{"a":"b"}"#]
  static let notAnInteger = [
    #""1""#, #""""#, "true", "[]", "{}", "[1]", "1.5", "-0.5", "0.1", "1e400", "-1e400", "1e-400",
    "5e-1", "9223372036854775808", "-9223372036854775809", "1e19", "18446744073709551616",
    "1" + String(repeating: "0", count: 400), "9223372036854775807.5", "01", "-01", "00", "+1",
    ".5", "1.", "-", "0x10", "NaN", "Infinity", "-Infinity", "1e", "1e+", "1E-",
    "1e99999999999999999999",
  ]
  static let wrongValues: [(fields: [String], values: [String])] = [
    (["hash", "mimeType", "md5", "endUser"], notAString),
    (["key"], notAString + ["null"]),
    (
      [
        "fsize", "putTime", "type", "status", "restoreStatus", "lastModify", "expiration",
        "transitionToIA", "transitionToArchiveIR", "transitionToARCHIVE", "transitionToArchive",
        "transitionToDeepArchive",
      ], notAnInteger
    ),
    (["x-qn-meta"], ["1", #""s""#, "true", "[]", #"["a"]"#, #"{"a":"#]),
    (["parts"], ["1", #""s""#, "true", "{}", #"["1"]"#, "[1.5]", "[null]", "[[]]", "[1e400]"]),
  ]
  static let statOnlyFields: Set<String> = [
    "expiration", "transitionToIA", "transitionToArchiveIR", "transitionToARCHIVE",
    "transitionToArchive", "transitionToDeepArchive",
  ]
  static let wrongListValues: [(fields: [String], values: [String])] = [
    (["marker"], notAString),
    (["commonPrefixes"], ["1", #""s""#, "true", "{}", "[1]", "[null]", "[[]]", "[{}]"]),
    (
      ["items"],
      [
        "1", #""s""#, "true", "{}", "[1]", "[null]", #"["k"]"#, "[[]]", "[{}]", #"[{"key":null}]"#,
        #"[{"key":1}]"#,
      ]
    ),
  ]

  /// `members` with every member called `name` replaced by `value` (appended when absent).
  static func replacing(_ members: [JSONValue.Member], _ name: String, with value: JSONValue)
    -> JSONValue
  {
    var output = members.filter { $0.name != name }
    let first = members.firstIndex { $0.name == name } ?? output.count
    output.insert(.init(name, value), at: min(first, output.count))
    return .object(output)
  }

  @Test func wrongTypesAreProtocolErrors() async {
    await seededCheck(count: fuzzCount(400), input: fuzzInput { rng in rng.next() }) { seed in
      var rng = SplitMix64(seed: seed)
      let target = rng.int(0...2)
      let (allFields, values) = rng.pick(target == 2 ? Self.wrongListValues : Self.wrongValues)
      // List items don't carry the lifecycle dates of a stat answer: a list decoder skips them
      // like any other member it doesn't read, whatever their type.
      let fields = target == 1 ? allFields.filter { !Self.statOnlyFields.contains($0) } : allFields
      guard !fields.isEmpty else { return }
      let field = rng.pick(fields)
      // `.number` writes its text verbatim, which lets a test write text that is not JSON.
      let bad = JSONValue.number(rng.pick(values))
      var stat = randomStatAnswer(&rng).0.objectMembers ?? []
      let json: JSONValue
      switch target {
      case 0:
        json = Self.replacing(stat, field, with: bad)
      case 1:
        if !stat.contains(where: { $0.name == "key" }) { stat.append(.init("key", .string("k"))) }
        let item = Self.replacing(stat, field, with: bad)
        json = .object([.init("marker", .string("")), .init("items", .array([item]))])
      default:
        json = Self.replacing(randomListAnswer(&rng).0.objectMembers ?? [], field, with: bad)
      }
      let bytes = VariedJSONWriter.write(json, using: &rng)
      let decoder = AnswerDecoder.all[target == 0 ? 1 : 0]
      #expect(!expectValueOrProtocolError(decoder, bytes), "\(debugText(bytes))")
    }
  }

  @Test(arguments: ["list", "stat", "bucket list", "bucket list v2", "domain list", "region query"])
  func answersOfTheWrongShapeAreProtocolErrors(_ what: String) throws {
    let decoder = try #require(AnswerDecoder.all.first { $0.what == what })
    // `null` is an empty bucket list (Go writes an empty slice so).
    let wrong: [String] =
      (what == "bucket list" ? [] : ["null"]) + [
        "", " ", "true", "1", #""text""#, "<html>", "{} {}", "{}x", "[] []",
      ]
      + (["bucket list", "bucket list v2", "domain list"].contains(what)
        ? ["{}", #"{"a":1}"#, "[1]", "[null]"] : ["[]", "[{}]"])
    for text in wrong {
      #expect(!expectValueOrProtocolError(decoder, Array(text.utf8)), "\(text)")
    }
  }

  // MARK: Specific inputs

  static func repeated(_ text: String, _ count: Int) -> String {
    String(repeating: text, count: count)
  }

  @Test func deepNestingIsAProtocolErrorNotAStackOverflow() throws {
    let deep = 100_000
    let inputs = [
      Self.repeated("[", deep), Self.repeated(#"{"a":"#, deep),
      Self.repeated("[", deep) + Self.repeated("]", deep),
      #"{"items":[{"key":"k","x":"# + Self.repeated("[", deep),
      #"{"marker":"","x":"# + Self.repeated(#"{"a":"#, deep) + "1" + Self.repeated("}", deep) + "}",
      #"{"fsize":1,"x-qn-meta":{"a":"# + Self.repeated("[", deep),
      #"{"hosts":[{"rs":{"domains":"# + Self.repeated("[", deep),
    ]
    for input in inputs {
      let bytes = Array(input.utf8)
      expectEveryDecoderSafe(bytes)
      let error = #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(input) }
      #expect(error?.reason == "JSON nested too deeply")
    }
    for input in inputs.suffix(4) {
      let bytes = Array(input.utf8)
      let listError = #expect(throws: StorageError.self) { try Self.list(bytes) }
      #expect(listError?.message.contains("nested too deeply") == true)
      let statError = #expect(throws: StorageError.self) { try Self.stat(bytes) }
      #expect(statError?.message.contains("nested too deeply") == true)
    }
  }

  @Test func nestingUpToTheLimitIsRead() throws {
    let limit = 256
    let nested = Self.repeated("[", limit) + Self.repeated("]", limit)
    #expect(throws: Never.self) { try JSONValue.parse(nested) }
    #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse("[" + nested + "]") }
    // The list answer's own object, `items` and the item count towards the limit.
    func list(_ depth: Int) -> [UInt8] {
      Array(
        (#"{"items":[{"key":"k","x":"# + Self.repeated("[", depth) + Self.repeated("]", depth)
          + "}]}").utf8)
    }
    #expect(try Self.list(list(limit - 3)).items.map(\.key) == ["k"])
    #expect(throws: StorageError.self) { try Self.list(list(limit - 2)) }
  }

  @Test(arguments: FuzzAnswerPropertyTests.notAnInteger)
  func nonIntegersAreProtocolErrors(_ text: String) {
    #expect(throws: StorageError.self) { try Self.stat(Array(#"{"fsize":\#(text)}"#.utf8)) }
  }

  @Test(
    arguments: [
      [0x80], [0xC3], [0xC0, 0xAF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
      [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xFF], [0xE2, 0x82],
    ] as [[UInt8]])
  func invalidUTF8InAnyStringIsAProtocolError(_ invalid: [UInt8]) {
    let templates = [
      #"{"marker":"a@b"}"#, #"{"items":[{"key":"@"}]}"#, #"{"x":"skipped @"}"#, #"{"@":1}"#,
      #"{"marker":"\u00e9@\n"}"#, #"{"items":[{"key":"k","x-qn-meta":{"a":"@"}}]}"#,
    ]
    for template in templates {
      var bytes: [UInt8] = []
      for byte in template.utf8 {
        if byte == UInt8(ascii: "@") { bytes += invalid } else { bytes.append(byte) }
      }
      let error = #expect(throws: StorageError.self) { try Self.list(bytes) }
      #expect(error?.message.contains("not valid UTF-8") == true, "\(String(describing: error))")
      expectEveryDecoderSafe(bytes)
    }
  }

  @Test(arguments: [
    #"\uD800"#, #"\uDBFF\u0041"#, #"\uDC00"#, #"\uD800\uD800"#, #"\uDFFF\uD800"#, #"\uD800\n"#,
    #"\uD800\"#, #"\uD83D\uDE0"#, #"\u12"#, #"\u12G4"#, #"\x41"#, #"\U0041"#, #"\"#, "\t", "\u{0}",
  ])
  func badEscapesAndLoneSurrogatesAreProtocolErrors(_ escape: String) {
    // `z` continues no escape: `\uDE0z` and `\z` are both invalid.
    for template in [#"{"marker":"@"}"#, #"{"marker":"a@z"}"#, #"{"x":"@"}"#] {
      let text = template.replacingOccurrences(of: "@", with: escape)
      #expect(throws: StorageError.self, "\(text)") { try Self.list(Array(text.utf8)) }
      expectEveryDecoderSafe(Array(text.utf8))
    }
  }

  @Test func escapesDecode() throws {
    let text = #"{"marker":"\uD83D\uDE00\u0000\u00e9\/\"\\\b\f\n\r\t\u2028"}"#
    #expect(try Self.list(Array(text.utf8)).nextMarker == "😀\u{0}é/\"\\\u{8}\u{C}\n\r\t\u{2028}")
  }

  @Test(arguments: [
    #"{"marker":"abc"#, #"{"marker":"abc\"#, #"{"marker":"abc\"}"#, #"{"marker":"\u12"#,
    #"{"marker":""#, #"{"marker":"#, #"{"items":[{"key":"k"#, #"{"x":"a\"#,
  ])
  func unterminatedStringsAreProtocolErrors(_ text: String) {
    #expect(throws: StorageError.self) { try Self.list(Array(text.utf8)) }
    expectEveryDecoderSafe(Array(text.utf8))
  }

  @Test func largeAnswersAreReadInFull() throws {
    let key = String(repeating: "k", count: 1 << 20)
    let items = Array(repeating: #"{"key":"a","fsize":1}"#, count: 20_000).joined(separator: ",")
    let text = #"{"marker":"\#(key)","items":[\#(items)],"x":\#(Self.repeated("1", 100_000))}"#
    let page = try Self.list(Array(text.utf8))
    #expect(page.nextMarker == key)
    #expect(page.items.count == 20_000)
  }

  @Test func errorMessagesOfAnyBodyAreReadOrIgnored() async {
    #expect(Decode.errorMessage(Array(#"{"error":"no such key"}"#.utf8)) == "no such key")
    await seededCheck(count: fuzzCount(300), input: fuzzInput { rng in rng.next() }) { seed in
      var rng = SplitMix64(seed: seed)
      let message = rng.text()
      let json = scrambled([.init("error", .string(message))], &rng, shadowing: false)
      let bytes = VariedJSONWriter.write(json, using: &rng)
      #expect(Decode.errorMessage(bytes) == message)
      _ = Decode.errorMessage(mutated(bytes, &rng))
    }
  }
}
