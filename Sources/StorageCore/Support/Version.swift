/// The version of kodo, its library and its emulator; `User-Agent: kodo/<version>`.
public enum KodoVersion {
  /// The semantic version string.
  public static let current = "0.1.0"
  /// The `User-Agent` header value.
  public static var userAgent: String { "kodo/" + current }
}
