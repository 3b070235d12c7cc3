/// The one error type every public API of the storage libraries throws.
///
/// `kind` tells a caller what class of failure it was (the CLI maps it to an exit code); `message`
/// says what failed, in words for a person, without naming any command-line flag; `hint`, when
/// set, is what the caller can do about it, for the caller to word; `status`, `serviceCode`,
/// `serverMessage` and `requestID` carry the service's HTTP status, its error code (OSS's `Code`),
/// its error text and its request id (Kodo's `X-Reqid`, OSS's `x-oss-request-id`) when there was
/// an answer. Nothing in an error ever contains the secret key or a security token.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The class of a failure.
  public enum Kind: String, Sendable, Equatable, CaseIterable {
    /// No such bucket or key (Kodo 612, 631, HTTP 404, OSS `NoSuchKey`).
    case notFound
    /// The service refused the credentials or the request (401, 403), including clock skew.
    case unauthorized
    /// A retryable failure (5xx, 573, 429, dropped connections) that outlived every retry.
    case temporary
    /// The service could not be reached: DNS, connect, TLS, timeout.
    case unavailable
    /// The service answered with something that cannot be understood.
    case protocolError
    /// Input that cannot be used: a bad key, duration, policy, marker or argument value.
    case invalidInput
    /// Missing credentials, or an unreadable or invalid configuration.
    case configuration
    /// The work was cancelled (Ctrl-C, SIGTERM).
    case cancelled
    /// The reader of our output went away (a closed pipe); not a failure of the command.
    case outputClosed
    /// Reading or writing a local file failed (disk full, permission denied).
    case localIO
    /// The service answered with an error that fits no other class (other 4xx, 501, 579, 6xx).
    case rejected
    /// The destination exists and was not replaced: a differing local file, or a write the
    /// service refused because it may not replace what is there (Kodo 614, OSS
    /// `FileAlreadyExists`).
    case exists
    /// A write was refused because a condition it set on the object's state did not hold: the
    /// object changed since it was read (OSS 412 `PreconditionFailed`, Kodo 608).
    case preconditionFailed
  }

  /// What the caller can do about a failure; the command line words it.
  public enum Hint: Sendable, Equatable {
    /// Downloads from `bucket` need a base URL, and none is bound or configured.
    case needsDownloadDomain(bucket: String)
    /// The listing marker was refused: the listing has to start again from the beginning.
    case restartListing
    /// There is no such bucket: the account's buckets can be listed.
    case noSuchBucket(String)
    /// Extra fields set `field`, which comes from the call's own arguments (such as an upload
    /// token's scope and deadline): it has to be given there instead.
    case fieldFromArguments(String)
    /// `service` (`Kodo`, `OSS`) refused `credential`: the caller says where that value came
    /// from.
    case checkCredentials(service: String, credential: Credential)
  }

  /// Which of the credentials a refusal points at.
  public enum Credential: Sendable, Equatable {
    /// The access key is unknown.
    case accessKey
    /// The signature made with the secret key does not match.
    case secretKey
    /// The pair, without saying which.
    case both
  }

  /// The class of failure.
  public var kind: Kind
  /// What failed and what to do, for a person; one line, no trailing period.
  public var message: String
  /// The HTTP status of the service's answer, when there was one.
  public var status: Int?
  /// The service's error code (OSS's `Code`, such as `NoSuchKey`), when it sent one.
  public var serviceCode: String?
  /// The service's error text from the answer's body, when it sent one.
  public var serverMessage: String?
  /// The service's request id, when the answer carried one.
  public var requestID: String?
  /// What the caller can do about it, when there is something specific.
  public var hint: Hint?
  /// For a failed download: how many body bytes had already reached the destination (0: none,
  /// so the download can be tried again even where the destination cannot be rewound).
  public var writtenBytes: Int64?
  /// The request never reached the service: no connection could be made (the host or proxy
  /// could not be resolved or reached, the connection or its TLS handshake failed), so not a byte
  /// of it was sent and even a request that must not be repeated may be tried again.
  public var neverSent = false

  /// An error of `kind` with a message and, optionally, what the service's answer said.
  public init(
    _ kind: Kind, _ message: String, status: Int? = nil, serviceCode: String? = nil,
    serverMessage: String? = nil, requestID: String? = nil, hint: Hint? = nil
  ) {
    self.kind = kind
    self.message = message
    self.status = status
    self.serviceCode = serviceCode
    self.serverMessage = serverMessage
    self.requestID = requestID
    self.hint = hint
  }

  /// The message, with the request id when there is one.
  public var description: String {
    guard let requestID, !requestID.isEmpty else { return message }
    return message + " (request id " + DisplayText.escaped(requestID) + ")"
  }
}
