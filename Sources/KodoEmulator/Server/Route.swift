import KodoCore
import StorageCore

/// The endpoint a request addresses.
enum Route: Equatable {
  case query
  case buckets
  case bucketsV2
  case bucketInfo
  case domains
  case list
  case stat(entry: Substring)
  case download(bucket: Substring, key: Substring)
  case control(Substring)
  /// `POST /`: a form upload.
  case formUpload
  /// Resumable uploads: v1 `/mkblk/…`, `/bput/…`, `/mkfile/…`; v2 `/buckets/B/objects/…`.
  case upload(Substring)
  /// rs writes: `/delete/…`, `/move/…`, `/copy/…`, `/chgm/…`, `/chtype/…`, `/chstatus/…`,
  /// `/restoreAr/…`, `/deleteAfterDays/…`, and `/batch`.
  case write(Substring)
  case unknown

  /// The rs operations a single request or a batch op may name.
  static let writeOperations: Set<Substring> = [
    "delete", "move", "copy", "chgm", "chtype", "chstatus", "restoreAr", "deleteAfterDays",
  ]

  init(path: Substring) {
    switch path {
    case "/": self = .formUpload
    case "/batch": self = .write(path)
    case "/v4/query": self = .query
    case "/buckets": self = .buckets
    case "/v2/buckets": self = .bucketsV2
    case "/v2/bucketInfo": self = .bucketInfo
    case "/v2/domains": self = .domains
    case "/list": self = .list
    default:
      if let rest = WireText.dropping(prefix: "/stat/", from: path) {
        self = .stat(entry: rest[..<(KeySegments.firstSlash(in: rest) ?? rest.endIndex)])
      } else if let rest = WireText.dropping(prefix: "/dl/", from: path) {
        let (bucket, key) = KeySegments.splitAtFirstSlash(rest) ?? (rest, rest[rest.endIndex...])
        self = .download(bucket: bucket, key: key)
      } else if let rest = WireText.dropping(prefix: "/_emulator/", from: path) {
        self = .control(rest)
      } else if ["/mkblk/", "/bput/", "/mkfile/", "/buckets/"].contains(where: {
        WireText.hasPrefix(path, $0)
      }) {
        self = .upload(path)
      } else if let operation = KeySegments.segments(of: path.dropFirst()).first,
        Self.writeOperations.contains(operation)
      {
        self = .write(path)
      } else {
        self = .unknown
      }
    }
  }

  /// The fault-injection endpoint, or `nil` for control requests.
  var faultEndpoint: EmulatorFault.Endpoint? {
    switch self {
    case .query: .query
    case .buckets, .bucketsV2: .buckets
    case .bucketInfo: .bucketInfo
    case .domains: .domains
    case .list: .list
    case .stat: .stat
    case .download: .download
    case .formUpload, .upload: .upload
    case .write: .write
    case .control, .unknown: nil
    }
  }

  /// Whether `--fail-rate` applies: API requests other than `/v4/query`.
  var isFailRateEligible: Bool {
    switch self {
    case .buckets, .bucketsV2, .bucketInfo, .domains, .list, .stat, .formUpload, .upload, .write:
      true
    default: false
    }
  }

  /// Whether `--latency-ms` applies: every API request (not downloads, not control).
  var isDelayed: Bool {
    switch self {
    case .query, .buckets, .bucketsV2, .bucketInfo, .domains, .list, .stat, .formUpload, .upload,
      .write:
      true
    default: false
    }
  }

  /// The delay before the answer: `--latency-ms` for API requests, `--download-latency-ms` for
  /// downloads, none for control requests.
  func delayMilliseconds(_ configuration: EmulatorConfiguration) -> Int {
    if isDelayed { return max(0, configuration.latencyMilliseconds) }
    if case .download = self { return max(0, configuration.downloadLatencyMilliseconds) }
    return 0
  }
}

/// A request target split into path and raw query, without decoding.
struct RequestTarget {
  var path: Substring
  var query: Substring
  /// The authority of an absolute-form target (`http://host:port/path`), which stands for `Host`.
  var authority: Substring?

  init(_ uri: String) {
    var rest = Substring(uri)
    // An absolute-form target (`http://host/path`) addresses the same path.
    // On bytes: a raw target may hold UTF-8, and `/`, `?` or `#` before a combining mark is no
    // `Character` of its own.
    if let scheme = WireText.range(of: "://", in: rest),
      !KeySegments.containsSlash(rest[..<scheme.lowerBound])
    {
      rest = rest[scheme.upperBound...]
      let slash = KeySegments.firstSlash(in: rest) ?? rest.endIndex
      authority = rest[..<slash]
      rest = rest[slash...]
    }
    if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
    if let question = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
      path = rest[..<question]
      query = rest[rest.utf8.index(after: question)...]
    } else {
      path = rest
      query = ""
    }
  }
}

/// `--fail-rate`: which requests fail, and how, from the seed and the request's sequence number.
enum FailRate {
  static func outcome(seed: UInt64, sequence: UInt64, rate: Double) -> EmulatorFault.Mode? {
    let word = Mixing.mix(seed ^ 0x6661_696C, sequence)
    guard Mixing.unitInterval(word) < rate else { return nil }
    switch Mixing.splitMix(word) % 4 {
    case 0: return .status(503)
    case 1: return .status(599)
    case 2: return .status(573)
    default: return .drop
    }
  }

  /// The error message sent with an injected status.
  static func message(for status: Int) -> String {
    switch status {
    case 500: "internal server error"
    case 502: "bad gateway"
    case 503: "service unavailable"
    case 504: "gateway timeout"
    case 573: "too many requests"
    case 599: "server operation failed"
    default: "injected fault"
    }
  }
}
