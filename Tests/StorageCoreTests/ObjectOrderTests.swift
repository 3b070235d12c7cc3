import StorageCore
import Testing

/// The one comparison behind `ls --sort` and the browser's `o`.
@Suite("Object order")
struct ObjectOrderTests {
  struct Object {
    let key: String
    let size: Int64
    let time: Int64
  }

  static let objects: [Object] = [
    Object(key: "b", size: 5, time: 30), Object(key: "a", size: 5, time: 10),
    Object(key: "é", size: 1, time: 30), Object(key: "e\u{301}", size: 9, time: 20),
    Object(key: "c", size: 1, time: 10),
  ]

  static func sorted(_ order: ObjectOrder, reversed: Bool) -> [String] {
    objects.sorted { a, b in
      order.precedes(sizes: (a.size, b.size), times: (a.time, b.time), reversed: reversed) {
        if a.key.utf8.elementsEqual(b.key.utf8) { return 0 }
        return a.key.utf8.lexicographicallyPrecedes(b.key.utf8) ? -1 : 1
      }
    }.map(\.key)
  }

  @Test func eachOrderIsByItsFieldThenByKeyBytesAndReversedWhole() {
    // "e" + U+0301 (0x65 …) sorts before "é" (0xC3 …) by bytes, though the two are equal text.
    #expect(Self.sorted(.name, reversed: false) == ["a", "b", "c", "e\u{301}", "é"])
    #expect(Self.sorted(.size, reversed: false) == ["c", "é", "a", "b", "e\u{301}"])
    #expect(Self.sorted(.time, reversed: false) == ["a", "c", "e\u{301}", "b", "é"])
    for order in ObjectOrder.allCases {
      #expect(
        Self.sorted(order, reversed: true) == Self.sorted(order, reversed: false).reversed(),
        "\(order)")
    }
  }

  @Test func eachOrderNamesAFieldOfTheTable() {
    let names = Set(ObjectField.all.map(\.name))
    for order in ObjectOrder.allCases { #expect(names.contains(order.field), "\(order)") }
    #expect(ObjectOrder.allCases.map(\.field) == [.key, .size, .putTime])
  }

  /// `Timestamp`'s `<` and `==` agree (exactly one of `a < b`, `a == b`, `b < a`), also for the
  /// same instant given with other digits, which orders by its digits.
  @Test func timestampsAreTotallyOrdered() {
    let times = [-1, 0, 1, 10_000_000].flatMap { value in
      [0, 3, 7].map { Timestamp(hundredNanoseconds: Int64(value), fractionDigits: $0) }
    }
    for a in times {
      for b in times {
        let relations = [a < b, a == b, b < a].filter { $0 }.count
        #expect(relations == 1, "\(a) \(b)")
      }
    }
    #expect(
      times.sorted()
        == times.sorted {
          ($0.hundredNanoseconds, $0.fractionDigits) < ($1.hundredNanoseconds, $1.fractionDigits)
        })
  }
}
