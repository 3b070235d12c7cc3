public import StorageCore

/// Kodo's bucket-name rules, checked before any request is made.
public enum BucketName {
  /// Accepts 1–63 characters of `a–z`, `A–Z`, `0–9`, `-` and `_`. Kodo creates new buckets with
  /// 3–63 characters of `a–z`, `0–9` and `-`, but older buckets may have upper-case letters or
  /// `_`, so the check is looser than that rule: it refuses only what no bucket can be called.
  ///
  /// - Throws: `StorageError` (`.invalidInput`) saying what is wrong.
  public static func validate(_ name: String) throws(StorageError) {
    func invalid(_ why: String) -> StorageError {
      StorageError(.invalidInput, "invalid bucket name \(DisplayText.quoted(name)): \(why)")
    }
    guard !name.isEmpty else { throw invalid("it is empty") }
    guard name.utf8.count <= 63 else { throw invalid("longer than 63 characters") }
    for byte in name.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"):
        continue
      default:
        throw invalid("only letters, digits, '-' and '_' are allowed")
      }
    }
  }
}
