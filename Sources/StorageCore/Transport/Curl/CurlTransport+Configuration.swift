import CCurl

extension CurlTransport {
  /// How a ``CurlTransport`` connects, times out and identifies itself.
  public struct Configuration: Sendable, Equatable {
    /// The longest time to resolve the host, connect and finish the TLS handshake. Default 10 s.
    public var connectTimeout: Duration
    /// How long the transfer may run slower than ``minimumBytesPerSecond`` (including waiting for
    /// the answer to start) before it is abandoned. Default 30 s; rounded up to whole seconds.
    public var idleTimeout: Duration
    /// The speed below which the transfer counts as idle. Default 1 byte per second.
    public var minimumBytesPerSecond: Int
    /// The longest a whole transfer may take, or `nil` (the default) for no limit, so that big
    /// downloads are not cut off; ``idleTimeout`` still catches a stalled transfer.
    public var totalTimeout: Duration?
    /// The `User-Agent` header value. Default ``KodoVersion/userAgent`` (`kodo/<version>`).
    public var userAgent: String
    /// Whether to verify the server's TLS certificate and host name. Default `true`; only an
    /// explicit `false` turns verification off.
    public var verifyTLS: Bool
    /// A PEM file of CA certificates to trust instead of the system's, or `nil` (the default) for
    /// libcurl's built-in CA store.
    public var caCertificatesPath: String?
    /// The most redirects ``CurlTransport/download(_:to:)`` follows (only to `http`/`https`).
    /// Default 5. ``CurlTransport/send(_:)`` never follows redirects.
    public var maxDownloadRedirects: Int
    /// The most idle easy handles (each with its live connections) kept for reuse. Default 32.
    public var maxIdleHandles: Int
    /// Whether requests may go through a proxy named in the environment. Default
    /// ``ProxyPolicy/environment``.
    public var proxy: ProxyPolicy

    /// A configuration; every parameter has the documented default.
    public init(
      connectTimeout: Duration = .seconds(10),
      idleTimeout: Duration = .seconds(30),
      minimumBytesPerSecond: Int = 1,
      totalTimeout: Duration? = nil,
      userAgent: String = KodoVersion.userAgent,
      verifyTLS: Bool = true,
      caCertificatesPath: String? = nil,
      maxDownloadRedirects: Int = 5,
      maxIdleHandles: Int = 32,
      proxy: ProxyPolicy = .environment
    ) {
      self.connectTimeout = connectTimeout
      self.idleTimeout = idleTimeout
      self.minimumBytesPerSecond = minimumBytesPerSecond
      self.totalTimeout = totalTimeout
      self.userAgent = userAgent
      self.verifyTLS = verifyTLS
      self.caCertificatesPath = caCertificatesPath
      self.maxDownloadRedirects = maxDownloadRedirects
      self.maxIdleHandles = maxIdleHandles
      self.proxy = proxy
    }
  }

  /// Where a ``CurlTransport`` takes its proxy from.
  public enum ProxyPolicy: Sendable, Equatable {
    /// libcurl reads `http_proxy`, `https_proxy`/`HTTPS_PROXY`, `ALL_PROXY`/`all_proxy` and
    /// `NO_PROXY`/`no_proxy` itself, for every request (libcurl ignores upper-case `HTTP_PROXY`).
    case environment
    /// Never use a proxy, whatever the environment says (`CURLOPT_NOPROXY "*"`); for talking to
    /// a loopback server, as the tests do.
    case none
  }

  /// Counters over the life of one transport, for observing connection reuse.
  ///
  /// A test can send 100 requests to one server and expect `newConnections == 1`.
  public struct Metrics: Sendable, Equatable {
    /// Transfers that were started (whether or not they succeeded).
    public var requests: Int
    /// Connections opened, summed over transfers (libcurl's `CURLINFO_NUM_CONNECTS`); a transfer
    /// that reused a kept-alive connection adds 0.
    public var newConnections: Int

    /// Counters from their values.
    public init(requests: Int = 0, newConnections: Int = 0) {
      self.requests = requests
      self.newConnections = newConnections
    }
  }
}
