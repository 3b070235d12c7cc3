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
    /// The longest a whole download may take, or `nil` (the default) for no limit, so that big
    /// downloads are not cut off; ``idleTimeout`` still catches a stalled transfer.
    public var totalTimeout: Duration?
    /// The longest a whole API request (``CurlTransport/send(_:)``) may take, from connecting to
    /// the last byte of the answer, or `nil` for no limit. Default 120 s. ``idleTimeout`` only
    /// catches a transfer slower than ``minimumBytesPerSecond``; this also ends one that trickles
    /// a few bytes a second for ever.
    public var requestTimeout: Duration?
    /// The largest answer body buffered for a 2xx API answer, counted after decompression.
    /// Default 64 MiB; a larger one ends the transfer at once (`.protocolError`).
    public var maximumBodySize: Int
    /// The largest body buffered for any other status (an error answer, also on downloads),
    /// counted after decompression. Default 1 MiB.
    public var maximumErrorBodySize: Int
    /// The largest block of response header fields kept. Default 256 KiB.
    public var maximumHeaderSize: Int
    /// The `User-Agent` header value. Default ``KodoVersion/userAgent`` (`kodo/<version>`).
    public var userAgent: String
    /// Whether to verify the server's TLS certificate and host name. Default `true`; only an
    /// explicit `false` turns verification off.
    public var verifyTLS: Bool
    /// A PEM file of CA certificates to trust instead of the system's, or `nil` (the default) for
    /// libcurl's built-in CA store.
    public var caCertificatesPath: String?
    /// The most redirects ``CurlTransport/download(_:to:)`` follows (by `RedirectPolicy`'s
    /// rule: only to `http`/`https`, never from https to http, no credential to another origin).
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
      requestTimeout: Duration? = .seconds(120),
      maximumBodySize: Int = 64 << 20,
      maximumErrorBodySize: Int = 1 << 20,
      maximumHeaderSize: Int = 256 << 10,
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
      self.requestTimeout = requestTimeout
      self.maximumBodySize = maximumBodySize
      self.maximumErrorBodySize = maximumErrorBodySize
      self.maximumHeaderSize = maximumHeaderSize
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
