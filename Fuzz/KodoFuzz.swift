// libFuzzer entry point for `make fuzz`: compiled together with KodoCore's pure sources (no curl,
// no OpenSSL), so it reaches the internal answer decoders. Every input goes through every
// decoder; a crash or a broken invariant (a `fatalError` below) is a finding.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  fuzzAnswers(bytes)
  fuzzText(String(decoding: bytes, as: UTF8.self))
  return 0
}

/// Every answer decoder: a value, or a `protocolError` naming a byte of the answer.
func fuzzAnswers(_ bytes: [UInt8]) {
  var reader = JSONReader(bytes)
  let isJSON = (try? JSONValue.read(&reader)) != nil && (try? reader.expectEnd()) != nil
  func check<T>(_ body: (inout JSONReader) throws(JSONReader.Failure) -> T) {
    do {
      _ = try Decode.answer("fuzz", bytes, requestID: nil, body)
      if !isJSON { fatalError("a decoder accepted text that is not JSON") }
    } catch {
      guard error.kind == .protocolError, error.message.hasSuffix(" of \(bytes.count)") else {
        fatalError("not a protocolError: \(error)")
      }
    }
  }
  check { (reader) throws(JSONReader.Failure) in try Decode.listPage(&reader) }
  check { (reader) throws(JSONReader.Failure) in try Decode.objectFields(&reader, key: "k") }
  check { (reader) throws(JSONReader.Failure) in try Decode.bucketNames(&reader) }
  check { (reader) throws(JSONReader.Failure) in try Decode.bucketsV2(&reader) }
  check { (reader) throws(JSONReader.Failure) in try Decode.domains(&reader) }
  check { (reader) throws(JSONReader.Failure) in try Decode.regions(&reader) }
  _ = Decode.errorMessage(bytes)
  if let stat = try? Decode.answer(
    "stat", bytes, requestID: nil,
    { (reader) throws(JSONReader.Failure) in
      try Decode.objectFields(&reader, key: "k")
    })
  {
    for time in [
      stat.object.putTime.hundredNanoseconds, stat.object.lastModified?.hundredNanoseconds ?? 0,
      stat.expiration ?? 0,
    ] {
      _ = KodoTime.rfc3339(hundredNanoseconds: time)
      _ = KodoTime.rfc3339(unixSeconds: time)
      _ = KodoTime.unixSeconds(hundredNanoseconds: time)
    }
  }
}

/// The text codecs and parsers: no crash, and what decodes encodes back.
func fuzzText(_ text: String) {
  if let value = try? JSONValue.parse(text), (try? JSONValue.parse(value.asciiCompactText)) != value
  {
    fatalError("JSONValue does not round-trip")
  }
  if let bytes = URLSafeBase64.decode(text) {
    let encoded = URLSafeBase64.encode(bytes)
    if encoded != text && encoded.prefix(while: { $0 != "=" }) != text {
      fatalError("base64 decoded non-canonical text")
    }
  }
  if let entry = EncodedEntryURI.decode(text) {
    if entry.bucket.utf8.contains(UInt8(ascii: ":")) { fatalError("a bucket with a colon") }
    if EncodedEntryURI.decode(EncodedEntryURI.encode(bucket: entry.bucket, key: entry.key))?.key
      != entry.key
    {
      fatalError("entry URI does not round-trip")
    }
  }
  if let decoded = PercentEncoding.decode(text),
    PercentEncoding.decode(PercentEncoding.encodePath(decoded)) != decoded
  {
    fatalError("percent-encoding does not round-trip")
  }
  do {
    if try DurationParser.seconds(text) <= 0 { fatalError("a duration of zero or less") }
  } catch {
    if error.kind != .invalidInput { fatalError("not invalidInput: \(error)") }
  }
  if let seconds = HTTPDate.parse(text),
    HTTPDate.parse(HTTPDate.format(unixSeconds: seconds)) != seconds
  {
    fatalError("HTTP date does not round-trip")
  }
  _ = URLParts(text).port
  _ = DisplayText.quoted(text)
}
