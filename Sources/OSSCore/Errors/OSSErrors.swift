package import StorageCore

/// OSS's failures as the storage libraries' errors: an answer's `Code` and HTTP status become a
/// `StorageError.Kind` (and so an exit code), with the code, the message and the request id
/// kept, and a verdict for the request pipeline (retry, correct the clock, or give up).
///
/// Messages say what failed and what to do; they never contain the server's `StringToSign` or
/// `SignatureProvided` (a string to sign can hold the security token), and never name a
/// command-line flag.
package enum OSSErrors {
  /// The header that carries OSS's request id.
  package static let requestIDHeader = "x-oss-request-id"

  /// The class of failure for an OSS `code` answered with HTTP `status`.
  ///
  /// `NoSuchBucket`, `NoSuchKey` and other 404s: not found. `AccessDenied`,
  /// `InvalidAccessKeyId`, `SignatureDoesNotMatch`, `SecurityTokenExpired`,
  /// `RequestTimeTooSkewed` and other 401/403s: unauthorized. `FileAlreadyExists` (a write
  /// that may not replace): conflict. `PreconditionFailed` and other 412s: precondition
  /// failed. 5xx (but 501), 408, 429: temporary. An invalid signing region: configuration. 400
  /// and 416: invalid input. Anything else: rejected.
  package static func kind(code: String?, status: Int, message: String? = nil) -> StorageError.Kind
  {
    switch code {
    case "NoSuchBucket", "NoSuchKey", "NoSuchVersion", "SymlinkTargetNotExist": return .notFound
    case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "SecurityTokenExpired",
      "InvalidSecurityToken", "RequestTimeTooSkewed":
      return .unauthorized
    // An archived object not restored: refused like Kodo's 403 for it (77, permission).
    case "InvalidObjectState": return .unauthorized
    case "FileAlreadyExists": return .exists
    case "PreconditionFailed": return .preconditionFailed
    case "InvalidArgument" where message.map({ WireText.contains($0, "signing region") }) == true:
      return .configuration
    default: break
    }
    switch status {
    case 404: return .notFound
    case 401, 403: return .unauthorized
    case 412: return .preconditionFailed
    case 501: return .rejected
    case 408, 429, 500...599: return .temporary
    case 400, 416: return .invalidInput
    default: return .rejected
    }
  }

  /// The 5xx statuses OSS answers when another attempt cannot help: 501 (not implemented).
  static let finalServerErrors = [501]

  /// How the pipeline treats `response` to a request about `what` (`the listing of bucket
  /// "photos"`), on `bucket` and `key` when it names them: success for 2xx; a clock-skew answer
  /// (with OSS's `ServerTime`) for `RequestTimeTooSkewed`; a retryable failure for 5xx (but 501),
  /// 408 and 429 (rate-limited); a final failure otherwise.
  package static func verdict(
    for response: HTTPResponse, what: String, bucket: String? = nil, key: String? = nil
  ) -> AnswerVerdict {
    if (200..<300).contains(response.status) { return .success }
    let (failure, body) = error(for: response, what: what, bucket: bucket, key: key)
    if body?.code == "RequestTimeTooSkewed" {
      return .clockSkew(failure, serverTime: body?.serverTime?.unixSeconds)
    }
    switch response.status {
    case 429: return .failure(failure, retry: .retryRateLimited)
    case 408: return .failure(failure, retry: .retry)
    default:
      return .failure(
        failure,
        retry: RetryPolicy.isRetryable(status: response.status, except: finalServerErrors)
          ? .retry : .final)
    }
  }

  /// The error for a non-2xx `response`, and OSS's error body when one could be read (from the
  /// body, or from the `x-oss-err` header of a HEAD answer).
  package static func error(
    for response: HTTPResponse, what: String, bucket: String? = nil, key: String? = nil
  ) -> (error: StorageError, body: OSSErrorBody?) {
    let status = response.status
    var requestID = response.headers[requestIDHeader]
    var body: OSSErrorBody?
    var unreadable = false
    if !response.body.isEmpty {
      body = try? OSSAnswers.errorBody(response.body)
      unreadable = body == nil
    } else if let header = response.headers["x-oss-err"] {
      body = try? OSSAnswers.errorHeader(header)
      unreadable = body == nil
    }
    if requestID == nil || requestID?.isEmpty == true { requestID = body?.requestID }
    let code = body?.code
    var said = "HTTP \(status)"
    if let body {
      said += " " + DisplayText.escaped(body.code)
      if let ec = body.ec ?? response.headers["x-oss-ec"] {
        said += ", EC " + DisplayText.escaped(ec)
      }
      if let message = body.message, !message.isEmpty {
        said += ": " + DisplayText.escaped(String(message.prefix(300)))
      }
    } else if unreadable {
      said += " with an error body that is not OSS's XML"
    }
    if requestID == nil && body == nil {
      said += "; no x-oss-request-id, so something other than OSS (a proxy?) may have answered"
    }
    let kind = kind(code: code, status: status, message: body?.message)
    let quotedBucket = bucket.map { DisplayText.quoted($0) } ?? "the bucket"
    var hint: StorageError.Hint?
    let message: String
    switch (code, kind) {
    case ("NoSuchKey"?, _):
      message =
        "no such key \(key.map { DisplayText.quoted($0) } ?? "") in bucket \(quotedBucket) (\(said))"
    case ("NoSuchBucket"?, _):
      message = "no such bucket \(quotedBucket) (\(said))"
      hint = bucket.map { .noSuchBucket($0) }
    case ("InvalidAccessKeyId"?, _):
      message = "OSS does not accept the access key for \(what) (\(said))"
      hint = .checkCredentials(service: "OSS", credential: .accessKey)
    case ("SignatureDoesNotMatch"?, _):
      message = "OSS refused the signature of \(what) (\(said))"
      hint = .checkCredentials(service: "OSS", credential: .secretKey)
    case ("SecurityTokenExpired"?, _), ("InvalidSecurityToken"?, _):
      message =
        "OSS refused the security token (STS) for \(what) (\(said)); get new temporary credentials"
    case ("RequestTimeTooSkewed"?, _):
      let server = body?.serverTime.map { "; OSS's time is " + $0.rfc3339 } ?? ""
      message =
        "OSS refused \(what) because the local clock is wrong (\(said)\(server)); correct the system time"
    case ("SecondLevelDomainForbidden"?, _):
      message =
        "OSS refused \(what) because the bucket was named in the path (\(said)); address OSS's endpoints in virtual-hosted style, not path style"
    case ("InvalidObjectState"?, _):
      message =
        "\(what): the object is archived and must be restored before it can be read (\(said))"
    case (_, .configuration):
      message =
        "OSS refused \(what) (\(said)); the region must be a region ID such as cn-hangzhou, matching the endpoint"
    case (_, .notFound): message = "\(what): not found (\(said))"
    case (_, .unauthorized): message = "OSS denied access to \(what) (\(said))"
    case (_, .temporary) where status == 429:
      message = "OSS is limiting the request rate of \(what) (\(said))"
    case (_, .temporary): message = "OSS failed to answer \(what) (\(said))"
    case (_, .invalidInput) where status == 416:
      message = "\(what): the range asked for is outside the object (\(said))"
    case (_, .exists): message = "\(what): the destination already exists (\(said))"
    case (_, .preconditionFailed):
      message = "\(what): the object changed since it was read (\(said))"
    case (_, .invalidInput): message = "OSS rejected \(what) as invalid (\(said))"
    default: message = "OSS rejected \(what) (\(said))"
    }
    let failure = StorageError(
      kind, message, status: status, serviceCode: code, serverMessage: body?.message,
      requestID: requestID, hint: hint)
    return (failure, body)
  }
}
