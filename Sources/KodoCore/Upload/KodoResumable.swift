public import StorageCore

/// Kodo's resumable upload v1 (`mkblk`/`bput`/`mkfile`, `docs/write-protocol.md` §A4): fixed
/// 4 MiB blocks, each made with `mkblk` (and continued with `bput`), the file made from the
/// blocks' last contexts. For deployments without v2.
public enum KodoResumableV1 {
  /// The block size: 4 MiB.
  public static let blockSize = 4 * 1024 * 1024

  /// `/mkblk/<blockSize>`: the size of the whole block, whatever the first chunk's.
  public static func makeBlockPath(blockSize: Int) -> String {
    "/mkblk/" + String(blockSize)
  }

  /// `/bput/<ctx>/<offset>`: the next chunk of a block.
  public static func putChunkPath(context: String, offset: Int) -> String {
    "/bput/" + PercentEncoding.encodeQueryValue(context) + "/" + String(offset)
  }

  /// `/mkfile/<size>[/mimeType/<b64>][/key/<b64>][/fname/<b64>][/<name>/<b64>]…`, in the Python
  /// SDK's order; `fields` are custom variables (`x:name`) and metadata (`x-qn-meta-name`),
  /// whose names go into the path as they are (metadata names are checked before).
  public static func makeFilePath(
    size: Int64, key: String?, mimeType: String? = nil, fileName: String? = nil,
    fields: [(name: String, value: String)] = []
  ) -> String {
    var path = "/mkfile/" + String(size)
    if let mimeType { path += "/mimeType/" + URLSafeBase64.encode(mimeType) }
    if let key { path += "/key/" + URLSafeBase64.encode(key) }
    if let fileName { path += "/fname/" + URLSafeBase64.encode(fileName) }
    for field in fields {
      path += "/" + field.name + "/" + URLSafeBase64.encode(field.value)
    }
    return path
  }

  /// `mkfile`'s body: the last context of every block, in block order, joined by `,`.
  public static func makeFileBody(contexts: [String]) -> [UInt8] {
    Array(contexts.joined(separator: ",").utf8)
  }
}

/// Kodo's resumable upload v2 (multipart, `docs/write-protocol.md` §A5): paths on the up host,
/// the part headers and the complete body.
public enum KodoResumableV2 {
  /// The object segment: the key in URL-safe base64 with padding, `~` for no key (the service
  /// names the object).
  public static func objectSegment(key: String?) -> String {
    key.map { URLSafeBase64.encode($0) } ?? "~"
  }

  /// `/buckets/<bucket>/objects/<obj>/uploads`: initiate with `POST`.
  public static func initiatePath(bucket: String, key: String?) -> String {
    "/buckets/" + bucket + "/objects/" + objectSegment(key: key) + "/uploads"
  }

  /// `…/uploads/<uploadId>`: complete with `POST`, abort with `DELETE`, list parts with `GET`.
  public static func uploadPath(bucket: String, key: String?, uploadID: String) -> String {
    initiatePath(bucket: bucket, key: key) + "/" + PercentEncoding.encodeQueryValue(uploadID)
  }

  /// `…/uploads/<uploadId>/<partNumber>`: upload a part with `PUT`.
  public static func partPath(bucket: String, key: String?, uploadID: String, partNumber: Int)
    -> String
  {
    uploadPath(bucket: bucket, key: key, uploadID: uploadID) + "/" + String(partNumber)
  }

  /// List parts: `…/uploads/<uploadId>?max-parts=N[&part-number-marker=M]`.
  public static func listPartsPath(
    bucket: String, key: String?, uploadID: String, maxParts: Int = 1000, marker: Int? = nil
  ) -> String {
    var query = QueryString()
    query.append("max-parts", String(maxParts))
    if let marker { query.append("part-number-marker", String(marker)) }
    return uploadPath(bucket: bucket, key: key, uploadID: uploadID) + "?" + query.encoded
  }

  /// A part's headers: `Content-Type: application/octet-stream` and `Content-MD5` as the MD5's
  /// lower-case **hex** (not base64, unlike HTTP and OSS).
  public static func partHeaders(md5: [UInt8]) -> HTTPHeaders {
    ["Content-Type": "application/octet-stream", "Content-MD5": Hex.encode(md5)]
  }

  /// One uploaded part, as complete names it.
  public struct Part: Sendable, Equatable {
    /// The part number, 1 to 10000.
    public var number: Int
    /// The `etag` the part's upload answered.
    public var etag: String

    /// A part from its parts.
    public init(number: Int, etag: String) {
      self.number = number
      self.etag = etag
    }
  }

  /// Complete's JSON body as Qiniu's Python SDK writes it: `parts` sorted by number, then
  /// `fname`, `mimeType`, `customVars` and `metadata`, `null` when absent; `", "` and `": "`
  /// between items, non-ASCII escaped.
  public static func completeBody(
    parts: [Part], fileName: String?, mimeType: String?,
    customVars: [(name: String, value: String)]? = nil,
    metadata: [(name: String, value: String)]? = nil
  ) -> [UInt8] {
    var text = "{\"parts\": ["
    for (index, part) in parts.sorted(by: { $0.number < $1.number }).enumerated() {
      if index > 0 { text += ", " }
      text += "{\"etag\": "
      JSONValue.writeString(part.etag, to: &text)
      text += ", \"partNumber\": " + String(part.number) + "}"
    }
    text += "], \"fname\": "
    optional(fileName, to: &text)
    text += ", \"mimeType\": "
    optional(mimeType, to: &text)
    text += ", \"customVars\": "
    object(customVars, to: &text)
    text += ", \"metadata\": "
    object(metadata, to: &text)
    text += "}"
    return Array(text.utf8)
  }

  private static func optional(_ value: String?, to text: inout String) {
    if let value { JSONValue.writeString(value, to: &text) } else { text += "null" }
  }

  private static func object(_ pairs: [(name: String, value: String)]?, to text: inout String) {
    guard let pairs else {
      text += "null"
      return
    }
    text += "{"
    for (index, pair) in pairs.enumerated() {
      if index > 0 { text += ", " }
      JSONValue.writeString(pair.name, to: &text)
      text += ": "
      JSONValue.writeString(pair.value, to: &text)
    }
    text += "}"
  }
}
