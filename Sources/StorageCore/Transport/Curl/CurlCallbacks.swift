import CCurl

/// CURLOPT_HEADERFUNCTION: one header line (status line, field, or the blank end of a header).
func curlHeaderCallback(
  _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ userData: UnsafeMutableRawPointer?
) -> Int {
  receive(buffer, size * count, userData) { $0.receiveHeaderLine($1) }
}

/// CURLOPT_WRITEFUNCTION: body bytes. Returning anything but `length` aborts the transfer.
func curlWriteCallback(
  _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ userData: UnsafeMutableRawPointer?
) -> Int {
  receive(buffer, size * count, userData) { $0.receiveBody($1) }
}

/// The data callbacks' shared part: the transfer's context, cancellation, and libcurl's "all
/// taken" (`length`) or "stop" (any other number) answer.
@inline(__always)
private func receive(
  _ buffer: UnsafeMutablePointer<CChar>?, _ length: Int, _ userData: UnsafeMutableRawPointer?,
  _ take: (TransferContext, UnsafeRawBufferPointer) -> Bool
) -> Int {
  guard let userData else { return 0 }
  let context = Unmanaged<TransferContext>.fromOpaque(userData).takeUnretainedValue()
  if context.shouldAbort() { return length == 0 ? 1 : 0 }
  return take(context, UnsafeRawBufferPointer(start: buffer, count: length))
    ? length : (length == 0 ? 1 : 0)
}

/// CURLOPT_XFERINFOFUNCTION: runs often during a transfer and about once a second when idle; a
/// non-zero return aborts with CURLE_ABORTED_BY_CALLBACK.
func curlProgressCallback(
  _ userData: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t, _ downloadNow: curl_off_t,
  _ uploadTotal: curl_off_t, _ uploadNow: curl_off_t
) -> Int32 {
  guard let userData else { return 0 }
  let context = Unmanaged<TransferContext>.fromOpaque(userData).takeUnretainedValue()
  return context.shouldAbort() ? 1 : 0
}

// MARK: - Durations in libcurl's units

extension Duration {
  /// Whole milliseconds, at least 1 (libcurl reads 0 as "no limit").
  var wholeMilliseconds: Int {
    let (seconds, attoseconds) = components
    let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
    guard !milliseconds.overflow else { return Int.max }
    return max(1, Int(clamping: milliseconds.partialValue + attoseconds / 1_000_000_000_000_000))
  }

  /// `30 s` or `1500 ms`, for messages.
  var spoken: String {
    let milliseconds = wholeMilliseconds
    return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
  }

  /// Whole seconds rounded up, at least 1.
  var wholeSecondsRoundedUp: Int {
    let (seconds, attoseconds) = components
    return max(1, Int(clamping: seconds) + (attoseconds > 0 ? 1 : 0))
  }
}
