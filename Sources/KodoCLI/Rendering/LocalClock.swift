import StorageCore

/// A listing's local times, `YYYY-MM-DD HH:MM` as `LocalTime.appendDateAndMinute` writes them,
/// for a million rows: the zone's offset is remembered by UTC day and the civil date by local
/// day, so a row costs a few divisions, not a `localtime_r` and the calendar arithmetic.
///
/// A UTC day whose offset is the same at its first and its last quarter hour is taken to keep
/// that offset throughout (no zone changes its offset twice within a day); any other day, and
/// times too far from 1970 for the day arithmetic, go through `LocalTime` row by row.
struct LocalClock {
  private struct ZoneDay {
    /// The UTC day (days since 1970), or `Int64.min` for an empty slot.
    var day: Int64
    /// The offset throughout the day, or `nil` when it changes within the day.
    var offset: Int64?
  }

  private struct DateDay {
    /// The local day (days since 1970), or `Int64.min` for an empty slot.
    var day: Int64
    var year: Int64
    var month: Int
    var dayOfMonth: Int
  }

  /// Days remembered of each kind, by day modulo this (more than four years in a row).
  private static let slots = 2048
  /// Times this far from 1970 and nearer take the cache: no day arithmetic can overflow.
  private static let cachedRange: ClosedRange<Int64> = -(1 << 50)...(1 << 50)
  private static let secondsPerDay: Int64 = 86_400

  private var zones: [ZoneDay]
  private var dates: [DateDay]
  /// The zone's offset at a time (`LocalTime.offset`; tests give zones of their own).
  private let zoneOffset: @Sendable (Int64) -> Int64

  init(zoneOffset: @escaping @Sendable (Int64) -> Int64 = LocalTime.offset) {
    self.zoneOffset = zoneOffset
    zones = Array(repeating: ZoneDay(day: .min, offset: nil), count: Self.slots)
    dates = Array(
      repeating: DateDay(day: .min, year: 0, month: 0, dayOfMonth: 0), count: Self.slots)
  }

  /// The most bytes `append` writes: a year of any `Int64` and `-MM-DD HH:MM`.
  static let maximumLength = DecimalText.maximumLength(minimumDigits: 4) + 12

  /// Appends `unixSeconds` as local `YYYY-MM-DD HH:MM`.
  mutating func append(_ unixSeconds: Int64, to row: inout TerminalRow) {
    guard Self.cachedRange.contains(unixSeconds) else {
      let local = LocalTime.local(unixSeconds, offset: zoneOffset(unixSeconds))
      return Self.append(CivilTime(unixSeconds: local), to: &row)
    }
    let local = LocalTime.local(unixSeconds, offset: offset(unixSeconds))
    guard Self.cachedRange.contains(local) else {
      return Self.append(CivilTime(unixSeconds: local), to: &row)
    }
    let day = CivilTime.days(local)
    let secondsOfDay = Int(local - day * Self.secondsPerDay)
    let slot = Int(truncatingIfNeeded: day) & (Self.slots - 1)
    if dates[slot].day != day {
      let civil = CivilTime(unixSeconds: day * Self.secondsPerDay)
      dates[slot] = DateDay(day: day, year: civil.year, month: civil.month, dayOfMonth: civil.day)
    }
    let date = dates[slot]
    Self.append(
      year: date.year, month: date.month, day: date.dayOfMonth, hour: secondsOfDay / 3_600,
      minute: secondsOfDay % 3_600 / 60, to: &row)
  }

  /// The zone's offset at `unixSeconds` (within `cachedRange`).
  private mutating func offset(_ unixSeconds: Int64) -> Int64 {
    let day = CivilTime.days(unixSeconds)
    let slot = Int(truncatingIfNeeded: day) & (Self.slots - 1)
    if zones[slot].day != day {
      let start = day * Self.secondsPerDay
      let first = zoneOffset(start)
      let last = zoneOffset(start + Self.secondsPerDay - 900)
      zones[slot] = ZoneDay(day: day, offset: first == last ? first : nil)
    }
    return zones[slot].offset ?? zoneOffset(unixSeconds)
  }

  /// Appends `time` as `YYYY-MM-DD HH:MM` (times outside the cache).
  private static func append(_ time: CivilTime, to row: inout TerminalRow) {
    append(
      year: time.year, month: time.month, day: time.day, hour: time.hour, minute: time.minute,
      to: &row)
  }

  /// Appends `YYYY-MM-DD HH:MM` from its fields (the one place the row's date is written).
  @inline(__always)
  private static func append(
    year: Int64, month: Int, day: Int, hour: Int, minute: Int, to row: inout TerminalRow
  ) {
    row.append(decimal: year, minimumDigits: 4)
    row.appendLiteral("-")
    row.append(twoDigits: month)
    row.appendLiteral("-")
    row.append(twoDigits: day)
    row.appendLiteral(" ")
    row.append(twoDigits: hour)
    row.appendLiteral(":")
    row.append(twoDigits: minute)
  }
}
