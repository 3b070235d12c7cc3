import ArgumentParser
import StorageCore

/// `--expires DURATION` and `--deadline UNIX_SECONDS`, as `url` and `token upload` take them:
/// one of the two, and a deadline that has not passed.
enum Expiry {
  /// Refuses both options together, and a deadline that is no Unix time (usage errors, 64).
  static func validate(deadline: Int64?, expires: String?) throws {
    if deadline != nil && expires != nil {
      throw ValidationError("--deadline and --expires cannot be combined; give one of them")
    }
    if let deadline, deadline <= 0 {
      throw ValidationError("--deadline must be a positive Unix time")
    }
  }

  /// The deadline to sign with.
  ///
  /// - Parameters:
  ///   - deadline: `--deadline`, which must be after `now`.
  ///   - seconds: `--expires`, used when there is no deadline.
  ///   - now: the signing clock's time.
  ///   - signed: what is signed with it, for the message (`a URL`, `a token`).
  /// - Returns: `deadline`, or `now` plus `seconds`.
  /// - Throws: `StorageError(.invalidInput)` (65) for a deadline in the past.
  static func deadline(_ deadline: Int64?, expiresIn seconds: Int64, now: Int64, signed: String)
    throws(StorageError) -> Int64
  {
    guard let deadline else {
      let (sum, overflow) = now.addingReportingOverflow(seconds)
      return overflow ? .max : sum
    }
    guard deadline > now else {
      throw StorageError(
        .invalidInput,
        "--deadline \(deadline) is in the past (it is now \(now), \(Timestamp.rfc3339(unixSeconds: now))); \(signed) signed with it would never work"
      )
    }
    return deadline
  }
}
