import CCurl

/// A libcurl easy handle.
///
/// `@unchecked Sendable` invariant: a handle is used by one thread at a time. It is either in the
/// transport's idle pool (only touched under its mutex) or checked out by exactly one transfer,
/// which configures, performs and resets it on one thread and then puts it back.
struct EasyHandle: @unchecked Sendable {
  let raw: UnsafeMutableRawPointer

  func check(_ code: CURLcode, name: String) throws(StorageError) {
    guard code == CURLE_OK else {
      let text = curl_easy_strerror(code).map { String(cString: $0) } ?? "error \(code.rawValue)"
      throw StorageError(
        .configuration,
        "libcurl rejected option " + name + " (" + text
          + "); check that libcurl is 7.85 or newer and built with http and https")
    }
  }

  func set(_ option: CURLoption, _ value: Int, name: String) throws(StorageError) {
    try check(kodo_curl_easy_setopt_long(raw, option, value), name: name)
  }

  func set(_ option: CURLoption, offset: curl_off_t, name: String) throws(StorageError) {
    try check(kodo_curl_easy_setopt_off_t(raw, option, offset), name: name)
  }

  /// libcurl copies string options, so the C string need only live for the call.
  func set(_ option: CURLoption, string: String, name: String) throws(StorageError) {
    try check(string.withCString { kodo_curl_easy_setopt_string(raw, option, $0) }, name: name)
  }

  func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?, name: String)
    throws(StorageError)
  {
    try check(kodo_curl_easy_setopt_pointer(raw, option, pointer), name: name)
  }

  func set(_ option: CURLoption, list: UnsafeMutablePointer<curl_slist>?, name: String)
    throws(StorageError)
  {
    try check(kodo_curl_easy_setopt_slist(raw, option, list), name: name)
  }

  func set(_ option: CURLoption, callback: kodo_curl_data_callback, name: String)
    throws(StorageError)
  {
    try check(kodo_curl_easy_setopt_data_callback(raw, option, callback), name: name)
  }
}
