public import StorageCore

/// OSS's rules for bucket names: 3 to 63 characters, lower-case letters, digits and hyphens,
/// starting and ending with a letter or a digit.
public enum OSSBucketName {
  /// Whether `name` follows the rules (and can therefore be put in front of a host name).
  public static func isValid(_ name: String) -> Bool {
    reason(name) == nil
  }

  /// Throws when `name` cannot be an OSS bucket.
  ///
  /// - Throws: `StorageError(.invalidInput)` saying which rule the name breaks.
  public static func validate(_ name: String) throws(StorageError) {
    if let reason = reason(name) {
      throw StorageError(
        .invalidInput, "\(DisplayText.quoted(name)) cannot be an OSS bucket name: \(reason)")
    }
  }

  private static func reason(_ name: String) -> String? {
    let bytes = Array(name.utf8)
    guard (3...63).contains(bytes.count) else { return "it must be 3 to 63 characters long" }
    guard bytes.allSatisfy({ OSSEndpoint.isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") })
    else { return "it may contain only lower-case letters, digits and hyphens" }
    guard bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-") else {
      return "it must start and end with a letter or a digit"
    }
    return nil
  }
}
