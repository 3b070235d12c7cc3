import Foundation
import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

/// Fuzzing the provider-neutral codecs with arbitrary text: base64, percent-encoding, the URL
/// splitter, query strings, the duration parser, HTTP dates and the terminal escaper.
@Suite("Fuzzing the codecs and the duration parser")
struct CodecPropertyTests {
  @Test func base64DecodesExactlyWhatTheEncoderWrites() async {
    await seededCheck(count: fuzzCount(500), input: text(from: "ABCQZabqz0189-_==+/")) { text in
      let decoded = URLSafeBase64.decode(text)
      if let decoded {
        #expect(URLSafeBase64.encode(decoded) == padded(text))
      }
      // Foundation (standard alphabet) agrees, except that it also takes non-zero leftover bits.
      guard !text.contains("+"), !text.contains("/") else { return }
      let standard = padded(text).replacingOccurrences(of: "-", with: "+")
        .replacingOccurrences(of: "_", with: "/")
      if let foundation = Data(base64Encoded: standard) {
        if let decoded {
          #expect(decoded == Array(foundation))
        } else {
          #expect(URLSafeBase64.encode(Array(foundation)) != padded(text), "\(text)")
        }
      }
    }
  }

  @Test func percentDecodingAgreesWithFoundationAndReEncodes() async {
    await seededCheck(count: fuzzCount(500), input: text(from: "%%%0129aAfFgG/+ ~")) { text in
      let decoded = PercentEncoding.decode(text)
      // Foundation on Linux repairs invalid UTF-8 with U+FFFD where the decoder answers nil.
      let foundation = text.removingPercentEncoding
      if decoded != nil || foundation?.unicodeScalars.contains("\u{FFFD}") != true {
        #expect(decoded == foundation, "\(text.debugDescription)")
      }
      guard let decoded else { return }
      #expect(PercentEncoding.decode(PercentEncoding.encodePath(decoded)) == decoded)
      #expect(PercentEncoding.decode(PercentEncoding.encodeQueryValue(decoded)) == decoded)
      if !text.contains("%") { #expect(decoded == text) }
    }
  }

  /// The listing's UTF-8 check refuses exactly what the standard library's validator does.
  @Test func utf8TextValidatesAsTheStandardLibrary() async {
    await seededCheck(
      count: fuzzCount(1000),
      input: Gen<UInt8?>.element(of: [0x41, 0x7F, 0x80, 0xBF, 0xC2, 0xE0, 0xED, 0xEF, 0xF0, 0xF4])
        .map { $0 ?? 0xFF }.array(of: 0...8)
    ) { bytes in
      let ours = bytes.withUnsafeBufferPointer { UTF8Text.validating($0) }
      #expect(ours == String(validating: bytes, as: UTF8.self), "\(bytes)")
    }
    for text in ["Normal", "MULTIPART", "appendable", "Ünïcode Ä", "a\r\nB"] {
      #expect(UTF8Text.lowercased(text) == text.lowercased())
    }
  }

  @Test func percentEscapedBytesDecodeExactlyWhenUTF8() async {
    await seededCheck(
      count: fuzzCount(500), input: Gen<UInt8>.value(in: 0...255).array(of: 0...16)
    ) {
      bytes in
      let escaped = bytes.map { byte in
        let hex = String(byte, radix: 16, uppercase: byte % 2 == 0)
        return (hex.count == 1 ? "%0" : "%") + hex
      }
      let decoded = PercentEncoding.decode(escaped.joined())
      let isUTF8 = String(validating: bytes, as: UTF8.self) != nil
      #expect(decoded.map { Array($0.utf8) } == (isUTF8 ? bytes : nil))
    }
  }

  @Test func urlPartsSplitAnyTextWithoutLosingABeforeTheFragment() async {
    await seededCheck(count: fuzzCount(500), input: text(from: "hHtps:/?#@[]%:80")) { text in
      let parts = URLParts(text)
      _ = (parts.host, parts.port, parts.pathAndQuery)
      guard !text.utf8.contains(UInt8(ascii: "#")) else { return }
      let tail = Array((parts.authority + parts.path + (parts.query.map { "?" + $0 } ?? "")).utf8)
      let bytes = Array(text.utf8)
      #expect(bytes.suffix(tail.count) == tail[...], "\(text.debugDescription)")
      let head = String(decoding: bytes.dropLast(tail.count), as: UTF8.self)
      #expect(
        head.lowercased() == (parts.scheme.isEmpty && head.isEmpty ? "" : parts.scheme + "://"))
    }
  }

  /// What `DurationParser.seconds` must answer, computed in 128 bits: a bare number, or numbers
  /// each with a unit; more than zero and at most `Int64.max` seconds.
  static func expectedSeconds(_ text: String) -> Int64? {
    let bytes = Array(text.utf8)
    let cap = Int128(UInt64.max)
    var total: Int128 = 0
    var index = 0
    var tokens = 0
    while index < bytes.count {
      let start = index
      var value: Int128 = 0
      while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
        value = min(cap, value * 10 + Int128(bytes[index] - UInt8(ascii: "0")))
        index += 1
      }
      guard index > start else { return nil }
      tokens += 1
      var multiplier: Int128 = 1
      if index < bytes.count {
        switch bytes[index] {
        case UInt8(ascii: "s"): multiplier = 1
        case UInt8(ascii: "m"): multiplier = 60
        case UInt8(ascii: "h"): multiplier = 3_600
        case UInt8(ascii: "d"): multiplier = 86_400
        default: return nil
        }
        index += 1
      } else if tokens > 1 {
        return nil
      }
      total = min(cap, total + value * multiplier)
    }
    guard total > 0, total <= Int128(Int64.max) else { return nil }
    return Int64(total)
  }

  static func expectDuration(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let expected = expectedSeconds(text)
    do {
      let seconds = try DurationParser.seconds(text)
      #expect(seconds == expected, "\(text.debugDescription)", sourceLocation: sourceLocation)
    } catch {
      #expect(expected == nil, "\(text.debugDescription): \(error)", sourceLocation: sourceLocation)
      #expect(error.kind == .invalidInput, sourceLocation: sourceLocation)
      #expect(
        DisplayText.isDisplaySafe(error.message),
        sourceLocation: sourceLocation)
    }
  }

  @Test func durationsOfAnyTextAreSecondsOrInvalidInput() async {
    await seededCheck(count: fuzzCount(500), input: text(from: "0123456789smhdSx .-+")) { text in
      Self.expectDuration(text)
    }
  }

  @Test func durationsOfAnySumOfUnitsAreExact() async {
    let sums = fuzzInput { rng in
      (0..<rng.int(1...4)).map { _ in
        String(UInt64.random(in: 0...UInt64.max, using: &rng) >> UInt64(rng.int(0...63)))
          + rng.pick(["s", "m", "h", "d"])
      }.joined()
    }
    await seededCheck(count: fuzzCount(500), input: sums) { text in
      Self.expectDuration(text)
    }
  }

  @Test(
    arguments: [
      "99999999999999999999d", "9223372036854775807s", "9223372036854775807", "9223372036854775808",
      "106751991167300d", "106751991167301d", "9223372036854775807s1s", "153722867280912930m",
      "153722867280912931m", "2562047788015215h", "2562047788015216h",
      "0000000000000000000000000000001s", "0s0m1h", "1h1", "1d1h1m1s", "1s1s1s1s1s", "d", "1dd",
      "１s", "1٣s", "1s ", "\u{0}", "1\u{0}s", String(repeating: "9", count: 10_000),
      String(repeating: "1s", count: 10_000),
    ] as [String])
  func durationEdges(_ text: String) {
    Self.expectDuration(text)
  }

  @Test func httpDatesOfAnyTextParseOrNot() async {
    await seededCheck(
      count: fuzzCount(500), input: text(from: "0123456789 :,SunNovGMT", length: 0...40)
    ) {
      text in
      _ = HTTPDate.parse(text)
    }
  }

  @Test func httpDatesRoundTripAndSurviveAnyNumberInAnyField() async {
    // Years 1 to 9999, the four-digit years RFC 1123 writes.
    let dates = fuzzInput { rng in
      let seconds = Int64.random(in: -62_135_596_800...253_402_300_799, using: &rng)
      var fields = HTTPDate.format(unixSeconds: seconds).split(separator: " ").map(String.init)
      let number = String(rng.int64() >> Int64(rng.int(0...63)))
      let index = rng.int(1...4)
      fields[index] =
        index == 4 ? rng.pick(["\(number):00:00", "00:\(number):00", "00:00:\(number)"]) : number
      return (seconds, fields.joined(separator: " "))
    }
    await seededCheck(count: fuzzCount(500), input: dates) { input in
      let (seconds, mutated) = input
      #expect(HTTPDate.parse(HTTPDate.format(unixSeconds: seconds)) == seconds)
      if let parsed = HTTPDate.parse(mutated) {
        #expect(HTTPDate.parse(HTTPDate.format(unixSeconds: parsed)) == parsed)
      }
    }
  }

  @Test func displayTextOfAnyTextIsSafeForATerminal() async {
    await seededCheck(count: fuzzCount(500), input: anyKey) { text in
      let escaped = DisplayText.escaped(text)
      #expect(DisplayText.isDisplaySafe(escaped))
      #expect(DisplayText.escaped(escaped) == escaped)
      if text.unicodeScalars.allSatisfy({ !DisplayText.isUnsafe($0) }) { #expect(escaped == text) }
      if DisplayText.isDisplaySafe(text) { #expect(escaped == text) }
      let quoted = DisplayText.quoted(text)
      // Scalars, not Characters: a leading combining mark joins the quote's Character.
      #expect(quoted.unicodeScalars.first == "\"" && quoted.unicodeScalars.last == "\"")
      #expect(DisplayText.isDisplaySafe(quoted))
    }
  }

  @Test func queryValueRoundTripsAnyText() async {
    await seededCheck(count: 300, input: anyKey) { text in
      var query = QueryString()
      query.append("prefix", text)
      let encoded = query.encoded
      #expect(!encoded.dropFirst("prefix=".count).contains("&"))
      #expect(!encoded.contains("+"))
      #expect(PercentEncoding.decode(String(encoded.dropFirst("prefix=".count))) == text)
    }
  }

  @Test func base64RoundTripsAnyBytes() async {
    await seededCheck(count: 500, input: Gen.uint8().array(of: 0...64)) { bytes in
      let encoded = URLSafeBase64.encode(bytes)
      #expect(encoded.count % 4 == 0)
      #expect(URLSafeBase64.decode(encoded) == bytes)
      #expect(URLSafeBase64.decode(String(encoded.prefix(while: { $0 != "=" }))) == bytes)
      #expect(
        Data(
          base64Encoded: encoded.replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")) == Data(bytes))
    }
  }

  @Test func base64OfAnySequenceIsTheArraysEncoding() async {
    // The generic entry (any collection) and the array one share the encoder; a slice or a lazy
    // view must give the same text.
    await seededCheck(count: 300, input: Gen.uint8().array(of: 0...64)) { bytes in
      let encoded = URLSafeBase64.encode(bytes)
      #expect(URLSafeBase64.encode(bytes[...]) == encoded)
      #expect(URLSafeBase64.encode(bytes.lazy.map { $0 }) == encoded)
      var appended: [UInt8] = Array("prefix:".utf8)
      bytes.withUnsafeBufferPointer { URLSafeBase64.append($0, to: &appended) }
      #expect(appended == Array(("prefix:" + encoded).utf8))
    }
  }

  @Test func aKeyedHMACWritesTheOneShotMACIntoTheCallersBuffer() async {
    // RFC 2202, test case 2.
    let jefe = HMAC.Key(Array("Jefe".utf8))
    #expect(
      Hex.encode(jefe.authenticationCode(Array("what do ya want for nothing?".utf8)))
        == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
    await seededCheck(
      count: 200, input: Gen.uint8().array(of: 0...80), Gen.uint8().array(of: 0...200)
    ) { key, message in
      for algorithm in [HMAC.Algorithm.sha1, .sha256] {
        let expected = HMAC.authenticationCode(algorithm, key: key, message: message)
        let scheduled = HMAC.Key(key, algorithm: algorithm)
        #expect(scheduled.authenticationCode(message) == expected)
        var output = [UInt8](repeating: 0xAA, count: algorithm.outputSize + 3)
        message.withUnsafeBytes { message in
          output.withUnsafeMutableBytes { scheduled.authenticationCode(of: message, into: $0) }
        }
        #expect(Array(output.prefix(algorithm.outputSize)) == expected)
        #expect(output.suffix(3).allSatisfy { $0 == 0xAA })
        // A buffer too small for the MAC is left alone.
        var small = [UInt8](repeating: 0xAA, count: algorithm.outputSize - 1)
        message.withUnsafeBytes { message in
          small.withUnsafeMutableBytes { scheduled.authenticationCode(of: message, into: $0) }
        }
        #expect(small.allSatisfy { $0 == 0xAA })
      }
    }
  }

  /// `Timestamp.appendRFC3339` (built on the stack for years 0–9999, through `CivilTime`'s
  /// writer for the rest) writes the calendar fields, then the fraction with exactly the
  /// timestamp's digits, then `Z`: the same bytes on both paths and across their border.
  @Test func rfc3339TimesMatchTheCalendarFields() async {
    func expected(_ time: Timestamp) -> String {
      var fraction = time.hundredNanoseconds % 10_000_000
      if fraction < 0 { fraction += 10_000_000 }
      var text = CivilTime(unixSeconds: time.unixSeconds).rfc3339Seconds
      if time.fractionDigits > 0 {
        let digits = String(
          fraction
            / [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000][
              7 - time.fractionDigits])
        text += "." + String(repeating: "0", count: time.fractionDigits - digits.count) + digits
      }
      return text + "Z"
    }
    // Year 0 begins at -62167219200 s, year 10000 at 253402300800 s.
    let borders: [Int64] = [-62_167_219_201, -62_167_219_200, 0, 253_402_300_799, 253_402_300_800]
    for seconds in borders {
      for digits in 0...7 {
        let time = Timestamp(
          hundredNanoseconds: seconds * 10_000_000 + 1_234_567, fractionDigits: digits)
        #expect(time.rfc3339 == expected(time), "\(seconds) \(digits)")
      }
    }
    #expect(
      Timestamp(hundredNanoseconds: 13_603_956_734_587_420).rfc3339
        == "2013-02-09T07:41:13.4587420Z")
    await seededCheck(
      count: 500, input: Gen<Int64>.value(in: -700_000_000_000_000_000...700_000_000_000_000_000),
      Gen<Int>.value(in: 0...7)
    ) { hundredNanoseconds, digits in
      let time = Timestamp(hundredNanoseconds: hundredNanoseconds, fractionDigits: digits)
      #expect(time.rfc3339 == expected(time))
    }
    // Every time of the years 0–9999 (the fields written at fixed places).
    await seededCheck(
      count: 1000,
      input: Gen<Int64>.value(in: -621_672_192_000_000_000...2_534_023_007_999_999_999),
      Gen<Int>.value(in: 0...7)
    ) { hundredNanoseconds, digits in
      let time = Timestamp(hundredNanoseconds: hundredNanoseconds, fractionDigits: digits)
      #expect(time.rfc3339 == expected(time))
    }
  }

  /// The formatter writes bytes (`HTTPDate.write`); it writes what Foundation's RFC 1123
  /// formatter writes for the years 1970–2099, and what the string-built formatter it replaced
  /// wrote for any `Int64` (years of any length and sign).
  @Test func httpDatesAreWhatFoundationAndTheStringFormatterWrite() async {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    await seededCheck(count: fuzzCount(500), input: Gen<Int64>.value(in: 0...4_102_444_799)) {
      seconds in
      let expected = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
      #expect(HTTPDate.format(unixSeconds: seconds) == expected, "\(seconds)")
    }
    let edges: [Int64] = [
      .min, .min + 1, -62_167_219_201, -62_167_219_200, -1, 0, 253_402_300_800, .max,
    ]
    for seconds in edges {
      #expect(HTTPDate.format(unixSeconds: seconds) == Self.stringBuiltHTTPDate(seconds))
    }
    await seededCheck(count: fuzzCount(500), input: Gen<Int64>.value(in: .min ... .max)) {
      seconds in
      #expect(HTTPDate.format(unixSeconds: seconds) == Self.stringBuiltHTTPDate(seconds))
    }
  }

  /// `HTTPDate.format` as it was before it wrote bytes: interpolated strings.
  static func stringBuiltHTTPDate(_ unixSeconds: Int64) -> String {
    let months = [
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    let civil = CivilTime(unixSeconds: unixSeconds)
    let weekday = weekdays[Int(((CivilTime.days(unixSeconds) % 7) + 7) % 7)]
    return
      "\(weekday), \(pad(Int64(civil.day), 2)) \(months[civil.month - 1]) \(pad(civil.year, 4)) "
      + "\(pad(Int64(civil.hour), 2)):\(pad(Int64(civil.minute), 2)):\(pad(Int64(civil.second), 2)) GMT"
  }

  @Test func httpDatesRoundTrip() async {
    #expect(HTTPDate.format(unixSeconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    await seededCheck(count: 300, input: Gen<Int64>.value(in: 0...4_102_444_800)) { seconds in
      #expect(HTTPDate.parse(HTTPDate.format(unixSeconds: seconds)) == seconds)
    }
  }
}

@Suite("Durations")
struct DurationParserTests {
  @Test(arguments: [
    ("3600", Int64(3600)), ("90s", 90), ("15m", 900), ("2h", 7200), ("7d", 604_800),
    ("1h30m", 5400), ("365d", 31_536_000),
  ])
  func parses(_ text: String, _ seconds: Int64) throws {
    #expect(try DurationParser.seconds(text) == seconds)
  }

  @Test(arguments: [
    "", "0", "0s", "-5", "5x", "h", "1.5h", "1h30", " 5", "99999999999999999999",
    "9223372036854775807d",
  ])
  func rejects(_ text: String) {
    #expect(throws: StorageError.self) { try DurationParser.seconds(text) }
    do {
      _ = try DurationParser.seconds(text)
    } catch {
      #expect(error.kind == .invalidInput)
    }
  }
}
