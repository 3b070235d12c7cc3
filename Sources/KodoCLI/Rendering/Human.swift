import Foundation
import StorageCore
import Synchronization

/// Text formats for people: sizes, local times, padding.
enum Human {
  /// `66441` → `64.9 KiB`; bytes below 1 KiB as `512 B`; negative sizes (a service's nonsense)
  /// as plain numbers.
  static func size(_ bytes: Int64) -> DisplayText {
    DisplayText(escaping: ByteSize.text(bytes, wholeFrom100: true))
  }

  /// Appends `text` and spaces up to `width` characters (left-aligned).
  static func appendPadded(_ text: DisplayText, width: Int, to output: inout TerminalText) {
    output.append(text)
    output.appendSpaces(width - text.text.count)
  }

  /// Appends spaces and then `text` to fill `width` characters (right-aligned).
  static func appendRightAligned(_ text: DisplayText, width: Int, to output: inout TerminalText) {
    output.appendSpaces(width - text.text.utf8.count)
    output.append(text)
  }

  /// `text` padded with spaces to `width` characters.
  static func padRight(_ text: DisplayText, _ width: Int) -> DisplayText {
    let count = text.text.count
    return count >= width
      ? text : text + DisplayText(escaping: String(repeating: " ", count: width - count))
  }

  /// `text` after spaces up to `width` characters (right-aligned).
  static func padLeft(_ text: DisplayText, _ width: Int) -> DisplayText {
    let count = text.text.count
    return count >= width
      ? text : DisplayText(escaping: String(repeating: " ", count: width - count)) + text
  }

  /// Local time with seconds and zone, `2016-02-25 11:51:13 +0800`.
  static func localTimeLong(_ unixSeconds: Int64) -> String {
    let (civil, offset) = LocalTime.civil(unixSeconds)
    let sign = offset < 0 ? "-" : "+"
    let minutes = abs(offset) / 60
    return civil.dateAndMinute + ":" + twoDigits(civil.second) + " " + sign
      + twoDigits(Int(minutes / 60)) + twoDigits(Int(minutes % 60))
  }

  /// Local time to the minute, `2016-02-25 11:51`.
  static func localTime(_ unixSeconds: Int64) -> String {
    LocalTime.civil(unixSeconds).time.dateAndMinute
  }

  private static func twoDigits(_ value: Int) -> String {
    value < 10 ? "0\(value)" : "\(value)"
  }
}

/// Local civil time, from the C library's time zone rules, for people.
///
/// A listing formats a time per entry: asking `localtime_r` once per quarter hour of UTC and
/// doing the calendar arithmetic ourselves is what keeps the text view as cheap as JSON (zone
/// offsets change only at transitions, which fall on quarter hours).
enum LocalTime {
  private struct Cached {
    var quarter: Int64
    var offset: Int64
  }
  // One cache per thread would be faster still; a listing renders on one task, so a lock that is
  // never contended costs little.
  private static let cache = Mutex<Cached?>(nil)

  /// The civil time at `unixSeconds` in the local zone, and the zone's offset in seconds.
  static func civil(_ unixSeconds: Int64) -> (time: CivilTime, offset: Int64) {
    let offset = offset(unixSeconds)
    return (CivilTime(unixSeconds: local(unixSeconds, offset: offset)), offset)
  }

  /// The local zone's offset from UTC at `unixSeconds`, in seconds.
  static func offset(_ unixSeconds: Int64) -> Int64 {
    let quarter = unixSeconds >= 0 ? unixSeconds / 900 : (unixSeconds - 899) / 900
    return cache.withLock { cached -> Int64? in
      cached?.quarter == quarter ? cached?.offset : nil
    } ?? lookUp(unixSeconds, quarter: quarter)
  }

  /// The local time's seconds (`unixSeconds` itself where adding the offset would overflow).
  static func local(_ unixSeconds: Int64, offset: Int64) -> Int64 {
    let (local, overflow) = unixSeconds.addingReportingOverflow(offset)
    return overflow ? unixSeconds : local
  }

  /// Appends `YYYY-MM-DD HH:MM` (local).
  static func appendDateAndMinute(_ unixSeconds: Int64, to text: inout TerminalText) {
    appendDateAndMinute(civil(unixSeconds).time, to: &text)
  }

  fileprivate static func appendDateAndMinute(_ time: CivilTime, to text: inout TerminalText) {
    text.append(decimal: time.year, minimumDigits: 4)
    text.appendLiteral("-")
    text.append(decimal: Int64(time.month), minimumDigits: 2)
    text.appendLiteral("-")
    text.append(decimal: Int64(time.day), minimumDigits: 2)
    text.appendLiteral(" ")
    text.append(decimal: Int64(time.hour), minimumDigits: 2)
    text.appendLiteral(":")
    text.append(decimal: Int64(time.minute), minimumDigits: 2)
  }

  private static func lookUp(_ unixSeconds: Int64, quarter: Int64) -> Int64 {
    var seconds = time_t(clamping: unixSeconds)
    var parts = tm()
    let offset: Int64 = localtime_r(&seconds, &parts) == nil ? 0 : Int64(parts.tm_gmtoff)
    cache.withLock { $0 = Cached(quarter: quarter, offset: offset) }
    return offset
  }
}

extension CivilTime {
  /// `YYYY-MM-DD HH:MM`.
  fileprivate var dateAndMinute: String {
    var text = TerminalText()
    LocalTime.appendDateAndMinute(self, to: &text)
    return String(decoding: text.bytes, as: UTF8.self)
  }
}
