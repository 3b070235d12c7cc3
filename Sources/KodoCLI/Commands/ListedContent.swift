import StorageCore
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether a local file holds an object's content, judged from what a listing said of the
/// object, without a request per object: `put -r --skip-same`, `sync` both ways and `get -r`
/// compare a whole folder this way after listing it once.
///
/// Kodo's listing carries each object's hash (the qetag), which settles it. OSS's carries no
/// CRC-64, but an ETag that is the content's MD5 (32 hex digits) for a `Normal` object made by
/// one PutObject or CopyObject: a file with that MD5 is the same. An ETag that is not an MD5
/// (a multipart or appendable object's) says nothing, and neither does a different one (an
/// ETag may look like an MD5 without being one, as with some server-side encryption): then
/// only the object's details (one request: OSS's CRC-64) can tell.
enum ListedContent {
  /// What the listing shows.
  enum Verdict {
    /// The same content: `digest`, named `field` (`hash`, `md5`) in JSON lines.
    case same(digest: String, field: StaticString)
    /// Another size, or another hash where the listing's hash settles it.
    case different
    /// The listing cannot tell: ask for the object's details.
    case unknown
  }

  /// Compares the open, readable file `file` (of `size` bytes) with `object` as listed.
  ///
  /// - Throws: `.localIO` when the file cannot be read.
  static func compare(
    _ object: ObjectEntry, file: Int32, size: Int64, provider: any StorageProvider
  ) throws(StorageError) -> Verdict {
    guard object.size == size else { return .different }
    if let check = provider.integrityCheck(for: ObjectDetails(object: object)) {
      return try check.compute(file) == check.expected
        ? .same(digest: check.expected, field: "hash") : .different
    }
    guard let md5 = contentMD5(object) else { return .unknown }
    return try fileMD5(file) == md5 ? .same(digest: md5, field: "md5") : .unknown
  }

  /// The content's MD5 (lower-case hex) that the listing shows: OSS's ETag of a `Normal`
  /// object when it has the form of one.
  static func contentMD5(_ object: ObjectEntry) -> String? {
    if let md5 = object.md5, md5.utf8.count == 32 { return md5.lowercased() }
    guard object.objectType == "normal", let etag = object.etag, etag.utf8.count == 32,
      etag.utf8.allSatisfy(isHexDigit)
    else { return nil }
    return etag.lowercased()
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
      UInt8(ascii: "A")...UInt8(ascii: "F"):
      true
    default: false
    }
  }

  /// The MD5 (lower-case hex) of the open file `file`, read from its start with positional
  /// reads (its offset is not moved).
  static func fileMD5(_ file: Int32) throws(StorageError) -> String {
    let digest = MD5Digest()
    if let failure = PositionalFile.readAll(file, { digest.update($0) }) {
      throw StorageError(
        .localIO, "cannot read the file to compute its MD5: \(Errno(rawValue: failure))")
    }
    return digest.text
  }

  /// Opens `path` for a comparison: the descriptor of a regular file of exactly `size` bytes
  /// (the caller closes it), else `nil` (it cannot be opened, is not a regular file, or its size
  /// changed). With `noFollow`, a symbolic link is not followed.
  static func openRegular(_ path: String, size: Int64, noFollow: Bool) -> Int32? {
    let file = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (noFollow ? O_NOFOLLOW : 0))
    guard file >= 0 else { return nil }
    var status = stat()
    guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
      Int64(status.st_size) == size
    else {
      _ = close(file)
      return nil
    }
    return file
  }
}
