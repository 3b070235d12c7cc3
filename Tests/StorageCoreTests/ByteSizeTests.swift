import StorageCore
import Testing

@Suite("Byte sizes for people")
struct ByteSizeTests {
  @Test func tenthsOrWholeUnitsFrom100() {
    #expect(ByteSize.text(-5, wholeFrom100: true) == "-5 B")
    #expect(ByteSize.text(1023, wholeFrom100: false) == "1023 B")
    #expect(ByteSize.text(66_441, wholeFrom100: true) == "64.9 KiB")
    #expect(ByteSize.text(66_441, wholeFrom100: false) == "64.9 KiB")
    let large: Int64 = 123 * 1_048_576 + 400 * 1024
    #expect(ByteSize.text(large, wholeFrom100: false) == "123.4 MiB")
    #expect(ByteSize.text(large, wholeFrom100: true) == "123 MiB")
    // 1023.96 KiB: the tenths round up to 1024.0, which is whole from 100 on.
    #expect(ByteSize.text(1_048_535, wholeFrom100: true) == "1024 KiB")
    #expect(ByteSize.text(.max, wholeFrom100: false) == "8.0 EiB")
  }
}
