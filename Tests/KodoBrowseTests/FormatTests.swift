import KodoBrowse
import StorageCore
import Testing

@Suite("Browser formats")
struct FormatTests {
  @Test(arguments: [
    (Int64(1_715_514_660), "2024-05-12 11:51"),
    (0, "1970-01-01 00:00"),
    (-1, "1969-12-31 23:59"),
    (-62_135_596_800, "1-01-01 00:00"),
    (253_402_300_799, "9999-12-31 23:59"),
  ])
  func minuteInUTC(seconds: Int64, text: String) {
    #expect(Format.minute(Timestamp(unixSeconds: seconds)) == text)
  }

  @Test func sizesKeepATenthAtEveryScale() {
    #expect(Format.size(512) == "512 B")
    #expect(Format.size(66_441) == "64.9 KiB")
    #expect(Format.size(123 * 1_048_576 + 400 * 1024) == "123.4 MiB")
    #expect(Format.size(1_048_535) == "1024.0 KiB")
  }
}
