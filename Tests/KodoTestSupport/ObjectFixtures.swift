public import StorageCore

/// Objects for tests of the field table (`ObjectField`) and its views.
public enum ObjectFixtures {
  /// A stat answer with every field of `ObjectField.all` set (both providers' fields at once,
  /// which no service sends, so that every row shows), its text hostile where a service's is.
  public static let everyField = ObjectDetails(
    object: ObjectEntry(
      key: "logs/a b\u{1B}[2J.txt", size: 5_242_880,
      putTime: Timestamp(hundredNanoseconds: 17_155_146_601_234_567, fractionDigits: 7),
      storageClass: StorageClass(name: "archive", serviceName: "type 2"),
      mimeType: "text/plain", hash: "lt7qJ8bR3m2t7GdQ7mW8b9Q8h1cD",
      etag: "5D41402ABC4B2A76B9719D911017C592",
      status: .disabled, objectType: "multipart", md5: "5d41402abc4b2a76b9719d911017c592",
      endUser: "user\u{7}1", meta: ["zeta": "last", "Alpha": "first\u{1B}"],
      restoreStatus: .restoring,
      lastModified: Timestamp(hundredNanoseconds: 17_155_146_700_000_000, fractionDigits: 0),
      parts: [4_194_304, 1_048_576]),
    crc64: "1234567890123456789", expiration: 1_735_689_600, transitionToIA: 1_720_000_000,
    transitionToArchiveIR: 1_725_000_000, transitionToArchive: 1_730_000_000,
    transitionToDeepArchive: 1_733_000_000)

  /// A listing entry with only the fields every provider sends.
  public static let fewestFields = ObjectDetails(
    object: ObjectEntry(
      key: "a.txt", size: 0, putTime: Timestamp(unixSeconds: 1_715_514_660),
      storageClass: StorageClass(name: "standard", serviceName: "Standard")))
}
