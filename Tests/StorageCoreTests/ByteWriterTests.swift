import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

/// The writers that put digits and times straight into reserved room of an output buffer
/// (`DecimalText.write`, `CivilTime.writeRFC3339Seconds`, `Timestamp.writeRFC3339`): the bytes
/// they write, and that they stay within the room they ask for at the ends of their ranges.
@Suite("Byte writers")
struct ByteWriterTests {
  /// `value` in decimal, padded with zeros after the sign to `minimumDigits`, from the standard
  /// library's own formatting.
  private static func decimal(_ value: Int64, minimumDigits: Int) -> String {
    let digits = String(value.magnitude)
    let padding = String(repeating: "0", count: max(0, minimumDigits - digits.count))
    return (value < 0 ? "-" : "") + padding + digits
  }

  private static func appended(_ value: Int64, minimumDigits: Int) -> String {
    var bytes: [UInt8] = [UInt8(ascii: "<")]
    DecimalText.append(value, minimumDigits: minimumDigits, to: &bytes)
    #expect(bytes.count - 1 <= DecimalText.maximumLength(minimumDigits: minimumDigits))
    return String(decoding: bytes.dropFirst(), as: UTF8.self)
  }

  @Test func decimalsAtTheEndsOfTheirRangeAndEveryPowerOfTen() {
    var values: [Int64] = [0, 1, -1, 9, -9, .max, .min, .max - 1, .min + 1]
    var power: Int64 = 1
    for _ in 1...18 {
      power *= 10
      values += [power - 1, power, power + 1, -(power - 1), -power]
    }
    for value in values {
      for minimumDigits in [0, 1, 2, 4, 7, 19, 20, 25] {
        #expect(
          Self.appended(value, minimumDigits: minimumDigits)
            == Self.decimal(value, minimumDigits: minimumDigits),
          "\(value) \(minimumDigits)")
      }
    }
  }

  @Test func decimalsOfAnyValue() async {
    await seededCheck(
      count: 500, input: Gen<Int64>.value(in: .min ... .max), Gen<Int>.value(in: 0...22)
    ) { value, minimumDigits in
      #expect(
        Self.appended(value, minimumDigits: minimumDigits)
          == Self.decimal(value, minimumDigits: minimumDigits))
    }
  }

  /// The extremes of a timestamp, and calendar fields out of their ranges, are written in full
  /// within the room the writers reserve (a write past it traps).
  @Test func timesAtTheEndsOfTheirRangeStayWithinTheirRoom() {
    for hundredNanoseconds in [Int64.min, .min + 1, -1, 0, .max - 1, .max] {
      for digits in 0...7 {
        let time = Timestamp(hundredNanoseconds: hundredNanoseconds, fractionDigits: digits)
        var bytes: [UInt8] = []
        time.appendRFC3339(to: &bytes)
        #expect(bytes.count <= Timestamp.rfc3339MaximumLength)
        #expect(String(decoding: bytes, as: UTF8.self) == time.rfc3339)
      }
    }
    #expect(Timestamp(hundredNanoseconds: .max).rfc3339 == "31197-09-14T02:48:05.4775807Z")
    #expect(Timestamp(hundredNanoseconds: .min).rfc3339 == "-27258-04-19T21:11:54.5224192Z")
    #expect(Timestamp(hundredNanoseconds: -1).rfc3339 == "1969-12-31T23:59:59.9999999Z")
    let wild = CivilTime(
      year: .min, month: .min, day: .max, hour: -1, minute: 100, second: Int(Int64.min))
    var bytes: [UInt8] = []
    wild.appendRFC3339Seconds(to: &bytes)
    #expect(bytes.count <= CivilTime.rfc3339SecondsMaximumLength)
    #expect(
      String(decoding: bytes, as: UTF8.self)
        == "-9223372036854775808--9223372036854775808-9223372036854775807T-01:100:"
        + "-9223372036854775808")
  }
}
