import Foundation
import KodoTestSupport
import Testing

@testable import KodoCore

/// Inputs the fuzz property tests found wrong or crashing, kept as named cases.
@Suite("Fuzzing finds, kept as regressions")
struct FuzzRegressionTests {
  static func stat(_ text: String) throws(KodoError) -> ObjectStat {
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
    let error = #expect(throws: KodoError.self) { try Self.stat(#"{"fsize":\#(text)}"#) }
    #expect(error?.kind == .protocolError)
    #expect(error?.message.contains("expected an integer, found \(text)") == true)
  }
}
