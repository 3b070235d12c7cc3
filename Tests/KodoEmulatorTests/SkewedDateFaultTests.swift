import Foundation
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

/// The `skewed-date` fault on the Kodo front end: the answer's `Date` is shifted.
@Suite struct SkewedDateFaultTests {
  @Test func theKodoAnswerCarriesTheShiftedDate() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      emulator.server.scheduleFault(
        EmulatorFault(endpoint: .buckets, mode: .skewedDate(seconds: -7_200), count: 1))
      let now = Int64(Date().timeIntervalSince1970)
      let skewed = try await emulator.get("/buckets")
      #expect(skewed.status == 200)
      let date = try #require(skewed.header("Date").flatMap(HTTPDate.parse))
      #expect(abs(date - (now - 7_200)) < 600)
      let normal = try await emulator.get("/buckets")
      let later = try #require(normal.header("Date").flatMap(HTTPDate.parse))
      #expect(abs(later - now) < 600)
    }
  }

  @Test func theControlAPIParsesIt() throws {
    #expect(
      try EmulatorFault.parse(json: "{\"mode\":\"skewed-date\",\"skew\":-60,\"count\":2}")
        == EmulatorFault(endpoint: .any, mode: .skewedDate(seconds: -60), count: 2))
    #expect(
      try EmulatorFault.parse(json: "{\"mode\":\"skewed-date\"}").mode
        == .skewedDate(seconds: 3_600))
    #expect(throws: EmulatorFault.ParseError.self) {
      try EmulatorFault.parse(json: "{\"mode\":\"skewed-date\",\"skew\":99999999999}")
    }
  }
}
