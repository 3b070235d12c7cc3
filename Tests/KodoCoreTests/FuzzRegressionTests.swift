import Foundation
import KodoTestSupport
import Testing

@testable import KodoCore
@testable import StorageCore

/// Inputs the fuzz property tests found wrong or crashing, kept as named cases.
@Suite("Fuzzing finds, kept as regressions")
struct FuzzRegressionTests {
  static func stat(_ text: String) throws(StorageError) -> ObjectDetails {
    try Decode.answer("stat", Array(text.utf8), requestID: nil) {
      (reader) throws(JSONReader.Failure) in try Decode.objectFields(&reader, key: "k")
    }
  }

  // Integral numbers went through Double: `9007199254740993.0` read as ...992,
  // `-9223372036854775809` as Int64.min, `1e-400` as 0, and `9223372036854775807.0` was refused.
  @Test(arguments: [
    ("9007199254740993.0", Int64(9_007_199_254_740_993)),
    ("9007199254740993e0", 9_007_199_254_740_993),
    ("-9223372036854775807E00", -9_223_372_036_854_775_807), ("9223372036854775807.0", .max),
    ("922337203685477580.7e1", .max), ("-9.223372036854775808e18", .min), ("0e400", 0),
    ("-0.0", 0), ("150e-1", 15), ("0.05e2", 5),
    ("1" + String(repeating: "0", count: 2000) + "e-2000", 1),
  ])
  func integralFormsReadExactly(_ text: String, _ value: Int64) throws {
    #expect(try Self.stat(#"{"fsize":\#(text)}"#).object.size == value)
  }

  @Test(arguments: [
    "-9223372036854775809", "9223372036854775808", "1e-400", "5e-1", "0.05e1", "1e19",
    "1e99999999999999999999", "9223372036854775807.5",
  ])
  func nonIntegersAreRefused(_ text: String) {
    let error = #expect(throws: StorageError.self) { try Self.stat(#"{"fsize":\#(text)}"#) }
    #expect(error?.kind == .protocolError)
    #expect(error?.message.contains("expected an integer, found \(text)") == true)
  }

  static func decode<T>(
    _ text: String, _ body: (inout JSONReader) throws(JSONReader.Failure) -> T
  ) throws(StorageError) -> T {
    try Decode.answer("fuzz", Array(text.utf8), requestID: nil, body)
  }

  // A repeated member replaced the earlier one for most fields, but `items` and `hosts`
  // concatenated, and `parts: null`, a non-number `ctime` and a non-boolean `private` kept the
  // earlier value.
  @Test func repeatedMembersTakeTheLastValue() throws {
    let list = try Self.decode(
      #"{"marker":"a","items":[{"key":"x"}],"marker":"b","items":[{"key":"y","key":"z"}]}"#
    ) { (reader) throws(JSONReader.Failure) in try Decode.listPage(&reader) }
    #expect(list.nextMarker == "b")
    #expect(list.items.map(\.key) == ["z"])
    let cleared = try Self.decode(#"{"items":[{"key":"x"}],"items":null}"#) {
      (reader) throws(JSONReader.Failure) in try Decode.listPage(&reader)
    }
    #expect(cleared.items.isEmpty)
    let stat = try Self.stat(#"{"fsize":1,"parts":[1,2],"fsize":2,"parts":null}"#)
    #expect(stat.object.size == 2)
    #expect(stat.object.parts == nil)
    let regions = try Self.decode(#"{"hosts":[{"region":"z0"}],"hosts":[{"region":"z1"}]}"#) {
      (reader) throws(JSONReader.Failure) in try Decode.regions(&reader)
    }
    #expect(regions.map(\.region) == ["z1"])
    let buckets = try Self.decode(
      #"[{"tbl":"b","ctime":5,"ctime":"later","private":true,"private":"?"}]"#
    ) { (reader) throws(JSONReader.Failure) in try Decode.bucketsV2(&reader) }
    #expect(buckets == [Bucket(name: "b")])
  }

  // A server's Date header with a huge field overflowed in CivilTime.unixSeconds and crashed
  // the client while it checked for clock skew.
  @Test(arguments: [
    "Sun, 06 Nov 9223372036854775807 08:49:37 GMT",
    "Sun, 06 Nov -9223372036854775808 08:49:37 GMT",
    "Sun, 9223372036854775807 Nov 1994 08:49:37 GMT",
    "Sun, 06 Nov 1994 9223372036854775807:49:37 GMT",
    "Sun, 06 Nov 1994 08:9223372036854775807:37 GMT",
    "Sun, 06 Nov 1994 08:49:-9223372036854775808 GMT",
    "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT",
    "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
    "Sun, 06 Nov 1994 08:49:61 GMT", "Sun, 06 Nov 10000 08:49:37 GMT",
  ])
  func httpDatesWithFieldsOutOfRangeAreNotParsed(_ text: String) async throws {
    #expect(HTTPDate.parse(text) == nil)
    let stub = StubTransport(answers: [.response(.json(200, #"{"fsize":1}"#, date: text))])
    let kodo = client(stub)
    #expect(try await kodo.stat(bucket: "b", key: "k").object.size == 1)
    #expect(kodo.correctedClock.unixSeconds == vectorClock.unixSeconds)
  }

  @Test func httpDatesAtTheEdgesOfFourDigitYearsParse() {
    #expect(HTTPDate.parse("Mon, 01 Jan 0001 00:00:00 GMT") == -62_135_596_800)
    #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:60 GMT") == 253_402_300_800)
  }

  // Times near Int64.min (a putTime, lastModify or lifecycle date in an answer) overflowed in
  // CivilTime and KodoTime.unixSeconds(hundredNanoseconds:) and crashed `kodo stat` and `ls -l`.
  @Test(arguments: [Int64.min, .min + 1, .min + 9_999_998, .min + 86_398, -1, 0, .max] as [Int64])
  func extremeTimesFormat(_ value: Int64) {
    let seconds = KodoTime.unixSeconds(hundredNanoseconds: value)
    #expect(Int128(seconds) * 10_000_000 <= Int128(value))
    #expect(Int128(value) < (Int128(seconds) + 1) * 10_000_000)
    #expect(KodoTime.rfc3339(hundredNanoseconds: value).hasSuffix("Z"))
    #expect(KodoTime.rfc3339(unixSeconds: value).hasSuffix("Z"))
    #expect(HTTPDate.format(unixSeconds: value).hasSuffix(" GMT"))
  }

  @Test func timesNearInt64MinAreTheRightCalendarTimes() {
    #expect(KodoTime.rfc3339(unixSeconds: .min) == "-292277022657-01-27T08:29:52Z")
    #expect(KodoTime.unixSeconds(hundredNanoseconds: .min) == -922_337_203_686)
    #expect(KodoTime.rfc3339(unixSeconds: -1) == "1969-12-31T23:59:59Z")
    #expect(KodoTime.unixSeconds(hundredNanoseconds: -1) == -1)
  }

  // A region answer's ttl was added to the clock unchecked: `"ttl":9223372036854775807` crashed
  // the first request to a bucket.
  @Test(arguments: [Int64.max, .max - 1_704_067_200, -1, .min])
  func regionAnswersWithAnyTTLAreUsed(_ ttl: Int64) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-regions-\(UUID())"
    ).path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let answer = #"{"hosts":[{"region":"z0","ttl":\#(ttl),"rsf":{"domains":["rsf.example"]}}]}"#
    let stub = StubTransport { request, _ in
      if request.url.contains("/v4/query") { return .response(.json(200, answer)) }
      return .response(.json(200, #"{"marker":"","items":[]}"#))
    }
    let hosts = ServiceHosts(uc: "https://uc.example")
    _ = try await client(stub, hosts: hosts, cache: directory).listPage(bucket: "b")
    _ = try await client(stub, hosts: hosts, cache: directory).listPage(bucket: "b")
    let authorities = stub.requests.map { URLParts($0.url).authority }
    // A ttl under a minute counts as a minute, so the cached answer serves the second client.
    #expect(authorities == ["uc.example", "rsf.example", "rsf.example"])
  }
}
