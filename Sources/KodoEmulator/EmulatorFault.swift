import KodoCore
import StorageCore

/// A fault to inject into the next matching requests, in the order scheduled.
public struct EmulatorFault: Sendable, Equatable {
  /// Which requests a fault applies to.
  public enum Endpoint: String, Sendable, Equatable, CaseIterable {
    /// Any request except `/_emulator/` ones.
    case any = "*"
    /// `/v4/query`.
    case query
    /// `/buckets` and `/v2/buckets`.
    case buckets
    /// `/v2/bucketInfo`.
    case bucketInfo
    /// `/v2/domains`.
    case domains
    /// `/list`.
    case list
    /// `/stat/…`.
    case stat
    /// `/dl/…`.
    case download
    /// Uploads: form, resumable v1 and v2 (Kodo); PutObject and multipart (OSS).
    case upload
    /// Other writes: rs `delete`, `move`, `copy`, `chgm`, … and `/batch` (Kodo); DeleteObject,
    /// DeleteMultipleObjects and CopyObject (OSS).
    case write
  }

  /// What the fault does.
  public enum Mode: Sendable, Equatable {
    /// Answer with this status; `body` is sent as is (`application/json`), or, when `nil`,
    /// `{"error":"<message>"}` with a message fitting the status.
    case status(Int, body: String? = nil)
    /// Close the connection without answering.
    case drop
    /// A 502 HTML page, as a proxy in front of Kodo would send (`text/html`, no JSON).
    case html
    /// The normal answer's head with status 200, then the first half of its body, with a
    /// `Content-Length` matching that half.
    case truncated
    /// The normal answer's head and `Content-Length`, then half of the body, then a close.
    case shortBody
    /// Accept the request and never answer (the connection stays open until shutdown).
    case hang
    /// The normal answer without `X-Reqid`.
    case noReqid
    /// The normal answer's head, then nothing (the connection stays open until shutdown).
    case stallAfterHeaders
    /// The normal answer with the first byte of its body changed (same length): data that was
    /// damaged on its way, which only a digest of the content catches.
    case corruptBody
    /// The normal answer (the write done as asked) with the object's digest changed: Kodo's
    /// `hash` in the JSON body, OSS's `x-oss-hash-crc64ecma`. What a client must catch by
    /// comparing the service's digest with its own after an upload.
    case wrongDigest
    /// The answer of a server whose clock is off by `seconds`: its `Date` header (and on OSS
    /// the time signatures are checked against, and an error's `ServerTime`) is shifted.
    case skewedDate(seconds: Int64)

    /// The name used by the control API.
    public var name: String {
      switch self {
      case .status: "status"
      case .drop: "drop"
      case .html: "html"
      case .truncated: "truncated"
      case .shortBody: "short-body"
      case .hang: "hang"
      case .noReqid: "no-reqid"
      case .stallAfterHeaders: "stall-after-headers"
      case .corruptBody: "corrupt-body"
      case .wrongDigest: "wrong-digest"
      case .skewedDate: "skewed-date"
      }
    }
  }

  /// The requests it applies to.
  public var endpoint: Endpoint
  /// What it does.
  public var mode: Mode
  /// How many matching requests it applies to (at least 1).
  public var count: Int

  /// A fault for the next `count` requests to `endpoint`.
  public init(endpoint: Endpoint, mode: Mode, count: Int = 1) {
    self.endpoint = endpoint
    self.mode = mode
    self.count = count
  }

  /// Parses the control API's JSON: `{"endpoint":"list","mode":"status","status":503,"count":2}`;
  /// `endpoint` defaults to `*`, `count` to 1, `status` to 503; `error` sets the error message
  /// and `body` the whole body of a `status` fault; `skew` (seconds, default 3600, at most ten
  /// years either way) the clock offset of a `skewed-date` fault.
  ///
  /// - Throws: `EmulatorFault.ParseError` naming the problem.
  public static func parse(json text: String) throws(ParseError) -> EmulatorFault {
    let value: JSONValue
    do {
      value = try JSONValue.parse(text)
    } catch {
      throw ParseError(message: "the body is not JSON: \(error)")
    }
    guard case .object(let members) = value else {
      throw ParseError(message: "the body must be a JSON object")
    }
    var endpoint = Endpoint.any
    var modeName: String?
    var status = 503
    var count = 1
    var errorMessage: String?
    var body: String?
    var skew: Int64 = 3_600
    for member in members {
      switch (member.name, member.value) {
      case ("endpoint", .string(let name)):
        guard let parsed = Endpoint(rawValue: name) else {
          throw ParseError(
            message: "unknown endpoint '\(name)' (use one of "
              + Endpoint.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        endpoint = parsed
      case ("mode", .string(let name)): modeName = name
      case ("status", .number(let number)):
        // 1xx answers are interim and never end an exchange: as a fault they would leave the
        // client waiting for the real answer, so they are refused. 204 and 304 are sent without
        // a body, as HTTP requires.
        guard let parsed = Int(number), (200...999).contains(parsed) else {
          throw ParseError(message: "status must be an integer in 200...999")
        }
        status = parsed
      case ("count", .number(let number)):
        guard let parsed = Int(number), parsed >= 1 else {
          throw ParseError(message: "count must be a positive integer")
        }
        count = parsed
      case ("error", .string(let message)): errorMessage = message
      case ("body", .string(let text)): body = text
      case ("skew", .number(let number)):
        guard let parsed = Int64(number), parsed.magnitude <= 315_360_000 else {
          throw ParseError(message: "skew must be a whole number of seconds within ten years")
        }
        skew = parsed
      default:
        throw ParseError(message: "unexpected member '\(member.name)'")
      }
    }
    let mode: Mode
    switch modeName {
    case "status":
      if let errorMessage {
        var buffer = JSONBody.error(errorMessage)
        mode = .status(status, body: buffer.readString(length: buffer.readableBytes))
      } else {
        mode = .status(status, body: body)
      }
    case "drop": mode = .drop
    case "html": mode = .html
    case "truncated": mode = .truncated
    case "short-body": mode = .shortBody
    case "hang": mode = .hang
    case "no-reqid": mode = .noReqid
    case "stall-after-headers": mode = .stallAfterHeaders
    case "corrupt-body": mode = .corruptBody
    case "wrong-digest": mode = .wrongDigest
    case "skewed-date": mode = .skewedDate(seconds: skew)
    case nil: throw ParseError(message: "mode is required")
    case .some(let name):
      throw ParseError(
        message: "unknown mode '\(name)' (use status, drop, html, truncated, short-body, hang, "
          + "no-reqid, stall-after-headers, corrupt-body, wrong-digest or skewed-date)")
    }
    return EmulatorFault(endpoint: endpoint, mode: mode, count: count)
  }

  /// Why a control-API fault description was rejected.
  public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The message.
    public var description: String { message }
  }
}

/// Request counters, from `EmulatorServer.stats` or `GET /_emulator/stats`.
public struct EmulatorStats: Sendable, Equatable {
  /// Requests to the uc, rs, rsf and api endpoints and downloads (not `/_emulator/`).
  public var total = 0
  /// `/v4/query`.
  public var query = 0
  /// `/buckets` and `/v2/buckets`.
  public var buckets = 0
  /// `/v2/bucketInfo`.
  public var bucketInfo = 0
  /// `/v2/domains`.
  public var domains = 0
  /// `/list`.
  public var list = 0
  /// `/stat/…`.
  public var stat = 0
  /// `/dl/…`.
  public var download = 0
  /// Uploads (see `EmulatorFault.Endpoint.upload`).
  public var upload = 0
  /// Other writes (see `EmulatorFault.Endpoint.write`).
  public var write = 0
  /// Requests to no known endpoint, and malformed requests.
  public var other = 0
  /// `/_emulator/…` requests (not in `total`).
  public var control = 0
  /// Connections accepted.
  public var connections = 0
  /// Faults injected, scheduled or from the fail rate.
  public var faults = 0

  /// All zero.
  public init() {}
}
