/// The one error type every public `KodoCore` API throws.
///
/// `kind` tells a caller what class of failure it was (the CLI maps it to an exit code); `message`
/// says what failed and what to do, in words for a person; `status`, `serverMessage` and
/// `requestID` carry Kodo's HTTP status, its `error` text and its `X-Reqid` when there was an
/// answer. Nothing in an error ever contains the secret key.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The class of a failure.
  public enum Kind: String, Sendable, Equatable, CaseIterable {
    /// No such bucket or key (Kodo 612, 631, HTTP 404).
    case notFound
    /// Kodo refused the credentials or the request (401, 403), including clock skew.
    case unauthorized
    /// A retryable failure (5xx, 573, dropped connections) that outlived every retry.
    case temporary
    /// The service could not be reached: DNS, connect, TLS, timeout.
    case unavailable
    /// The service answered with something that cannot be understood.
    case protocolError
    /// Input that cannot be used: a bad key, duration, policy, marker or argument value.
    case invalidInput
    /// Missing credentials, or an unreadable or invalid configuration file.
    case configuration
    /// The work was cancelled (Ctrl-C, SIGTERM).
    case cancelled
    /// The reader of our output went away (a closed pipe); not a failure of the command.
    case outputClosed
    /// Reading or writing a local file failed (disk full, permission denied).
    case localIO
    /// Kodo answered with an error that fits no other class (other 4xx, 501, 579, 6xx).
    case rejected
  }

  /// The class of failure.
  public var kind: Kind
  /// What failed and what to do, for a person; one line, no trailing period.
  public var message: String
  /// The HTTP status of Kodo's answer, when there was one.
  public var status: Int?
  /// Kodo's `error` text from the answer's body, when it sent one.
  public var serverMessage: String?
  /// Kodo's request id (`X-Reqid`), when the answer carried one.
  public var requestID: String?

  /// An error of `kind` with a message and, optionally, what Kodo's answer said.
  public init(
    _ kind: Kind, _ message: String, status: Int? = nil, serverMessage: String? = nil,
    requestID: String? = nil
  ) {
    self.kind = kind
    self.message = message
    self.status = status
    self.serverMessage = serverMessage
    self.requestID = requestID
  }

  /// The message, with the request id when there is one.
  public var description: String {
    guard let requestID, !requestID.isEmpty else { return message }
    return message + " (request id " + DisplayText.escaped(requestID) + ")"
  }
}
