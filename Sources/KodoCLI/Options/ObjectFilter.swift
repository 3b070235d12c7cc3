import ArgumentParser
import Foundation
import StorageCore

/// The tests `find` applies to each listed object, all of which must hold. They run on what the
/// listing returns: only the prefix narrows what the service sends.
struct ObjectFilter: Sendable {
  var name: Glob?
  var path: Glob?
  var regex: KeyRegex?
  var larger: Int64?
  var smaller: Int64?
  /// Kept when put strictly after this time.
  var newer: Timestamp?
  /// Kept when put strictly before this time.
  var older: Timestamp?
  var storageClass: String?
  var mime: Glob?
  var patterns = KeyPatterns.none

  /// Whether every object is kept whatever it is: no test is given, or each given one holds for
  /// anything (`--name '*'`, `--path '**'`); `--include`/`--exclude` are always run, as they
  /// note which keys they met.
  var keepsEverything: Bool {
    (name?.matchesEverySegment ?? true) && (path.map { $0.shape == .anything } ?? true)
      && (mime.map { $0.shape == .anything } ?? true) && regex == nil && larger == nil
      && smaller == nil && newer == nil && older == nil && storageClass == nil
      && patterns.isEmpty
  }

  /// The objects kept, in order: `objects` itself when every one is. Each entry is tested
  /// where it lies in the array: a copy of an entry is a retain and a release per field.
  func kept(_ objects: [ObjectEntry]) -> [ObjectEntry] {
    if keepsEverything { return objects }
    return objects.withUnsafeBufferPointer { entries in
      var index = 0
      while index < entries.count, keeps(entries[index]) { index += 1 }
      guard index < entries.count else { return objects }
      var kept = Array(entries[..<index])
      index += 1
      while index < entries.count {
        if keeps(entries[index]) { kept.append(entries[index]) }
        index += 1
      }
      return kept
    }
  }

  func keeps(_ object: ObjectEntry) -> Bool {
    // The patterns first: whether an --include met any key is then known whatever the rest.
    if !patterns.isEmpty, !patterns.keeps(object.key) { return false }
    if let larger, object.size <= larger { return false }
    if let smaller, object.size >= smaller { return false }
    // Instants: the same moment with other digits (a date typed by the user, Kodo's 7) is the
    // same time.
    let time = object.putTime.hundredNanoseconds
    if let newer, time <= newer.hundredNanoseconds { return false }
    if let older, time >= older.hundredNanoseconds { return false }
    if let storageClass, object.storageClass.name != storageClass { return false }
    if let mime, !mime.matches(object.mimeType ?? "") { return false }
    if let name, !name.matchesLastSegment(of: object.key) { return false }
    if let path, !path.matches(object.key) { return false }
    if let regex, !regex.matches(object.key) { return false }
    return true
  }
}

extension KeyPatterns {
  static let none = KeyPatterns(empty: ())

  private init(empty: Void) {
    include = []
    exclude = []
  }
}

/// A regular expression searched for anywhere in the key (anchor it with `^…$` to match the
/// whole key).
struct KeyRegex: @unchecked Sendable {
  // NSRegularExpression is immutable and documented as safe to share between threads.
  private let expression: NSRegularExpression

  init(_ pattern: String) throws(StorageError) {
    do {
      expression = try NSRegularExpression(pattern: pattern)
    } catch {
      throw StorageError(
        .invalidInput, "invalid regular expression \(DisplayText.quoted(pattern)) for --regex")
    }
  }

  func matches(_ key: String) -> Bool {
    expression.firstMatch(in: key, range: NSRange(key.startIndex..., in: key)) != nil
  }
}

/// Sizes as `find` takes them: bytes, or a number with `k`, `M`, `G`, `T`, `P` (powers of 1024,
/// either case, optionally followed by `i`, `B` or `iB`).
enum SizeText {
  static func bytes(_ text: String, option: String) throws(StorageError) -> Int64 {
    func invalid() -> StorageError {
      StorageError(
        .invalidInput,
        "invalid size \(DisplayText.quoted(text)) for \(option): give bytes, or a number with k, M, G or T (powers of 1024), such as 10k or 5M"
      )
    }
    var digits = Substring(text)
    var suffix = ""
    while let last = digits.last, !last.isNumber {
      suffix = String(last) + suffix
      digits = digits.dropLast()
    }
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
      let value = Int64(digits)
    else { throw invalid() }
    var unit = suffix.lowercased()
    if unit.hasSuffix("b") { unit.removeLast() }
    if unit.hasSuffix("i") { unit.removeLast() }
    let shift: Int64
    switch unit {
    case "": shift = 0
    case "k": shift = 10
    case "m": shift = 20
    case "g": shift = 30
    case "t": shift = 40
    case "p": shift = 50
    default: throw invalid()
    }
    let (product, overflow) = value.multipliedReportingOverflow(by: Int64(1) << shift)
    guard !overflow else { throw invalid() }
    return product
  }
}

/// Times as `find` takes them: a duration before now (`7d`, `12h`, `3600`), an RFC 3339 time, or
/// a date (`2024-06-01`, its start in UTC).
enum WhenText {
  static func timestamp(_ text: String, option: String, now: Int64) throws(StorageError)
    -> Timestamp
  {
    if text.contains("T") || text.contains("-") {
      let formatter = ISO8601DateFormatter()
      formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
      let plain = ISO8601DateFormatter()
      // A plain date (2024-06-01) is that day's start in UTC.
      let day = ISO8601DateFormatter()
      day.formatOptions = [.withFullDate, .withDashSeparatorInDate]
      day.timeZone = TimeZone(secondsFromGMT: 0)
      let isDay = text.utf8.count == 10 && !text.contains("T")
      if let date = formatter.date(from: text) ?? plain.date(from: text)
        ?? (isDay ? day.date(from: text) : nil)
      {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e11 else { throw invalid(text, option) }
        return Timestamp(hundredNanoseconds: Int64((seconds * 1e7).rounded(.down)))
      }
      throw invalid(text, option)
    }
    let seconds: Int64
    do {
      seconds = try DurationParser.seconds(text)
    } catch {
      throw invalid(text, option)
    }
    let (start, overflow) = now.subtractingReportingOverflow(seconds)
    guard !overflow, start > -100_000_000_000 else { throw invalid(text, option) }
    return Timestamp(unixSeconds: start)
  }

  private static func invalid(_ text: String, _ option: String) -> StorageError {
    StorageError(
      .invalidInput,
      "invalid time \(DisplayText.quoted(text)) for \(option): give a duration before now (90s, 15m, 2h, 7d) a date (2024-06-01, UTC) or an RFC 3339 time (2024-06-01T00:00:00Z)"
    )
  }
}

/// The storage classes `find --storage-class` takes: each provider's (`ProviderFactory`).
enum StorageClassNames {
  /// The contract's name for `text` on `provider`.
  ///
  /// - Throws: `ValidationError` (64) for a class the provider does not have: a filter on it
  ///   could only ever match nothing.
  static func resolve(_ text: String, for provider: ProviderKind) throws -> String {
    if let name = provider.storageClass(named: text) { return name }
    throw ValidationError(
      "\(provider.displayName) has no storage class \(DisplayText(quoting: text)): give one of \(provider.storageClassNames.joined(separator: ", "))"
    )
  }
}
