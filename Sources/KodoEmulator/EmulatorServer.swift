import KodoCore
import NIOCore
import NIOHTTP1
import NIOPosix
import OSSCore
public import StorageCore

/// A running emulator: one HTTP/1.1 listener serving the uc, rs, rsf and api endpoints, the
/// downloads of every bucket, and the `/_emulator/` control API.
///
/// ```swift
/// let server = try await EmulatorServer.start(
///   EmulatorConfiguration(buckets: [.directory("photos", path: "demo/buckets/photos")]))
/// print(server.baseURL, server.downloadDomain(for: "photos"))
/// try await server.shutdown()
/// ```
public final class EmulatorServer: Sendable {
  /// A bucket as the server serves it.
  public struct ServedBucket: Sendable, Equatable {
    /// The name.
    public var name: String
    /// The download domain, `http://HOST:PORT/dl/NAME`.
    public var downloadDomain: String
    /// Whether downloads need a private-URL token.
    public var isPrivate: Bool
    /// The number of objects.
    public var objectCount: Int
    /// Where the objects come from, for people: `directory PATH`, `synthetic`, `in memory`.
    public var source: String
  }

  private let service: EmulatorService
  private let listener: any Channel
  private let connections: ConnectionRegistry

  /// The host bound, as configured.
  public let host: String
  /// The port bound (the one picked, when the configuration said 0).
  public let port: Int

  private init(
    service: EmulatorService, listener: any Channel,
    connections: ConnectionRegistry, host: String, port: Int
  ) {
    self.service = service
    self.listener = listener
    self.connections = connections
    self.host = host
    self.port = port
  }

  /// Loads the buckets, binds, and starts serving.
  ///
  /// Returns once the port accepts connections.
  ///
  /// - Throws: `EmulatorError` for a configuration it cannot serve or an address it cannot bind.
  public static func start(_ configuration: EmulatorConfiguration) async throws(EmulatorError)
    -> EmulatorServer
  {
    guard (0...65_535).contains(configuration.port) else {
      throw .invalidConfiguration("port \(configuration.port) is outside 0...65535")
    }
    let memory = MemoryBudget(limit: configuration.memoryLimit)
    let spool = try SpoolDirectory()
    var stores: [BucketStore] = []
    // A process being started holds a copy of every descriptor until it runs its program, the
    // one a claim is held through too (`DirectoryClaim`): a claim refused at first is tried
    // again for a while before another emulator is taken to serve the directory.
    let patience = ContinuousClock.now + .seconds(2)
    while true {
      do {
        stores = try loadBuckets(configuration, memory: memory, spool: spool)
        break
      } catch {
        if case .directoryInUse = error, ContinuousClock.now < patience {
          try? await Task.sleep(for: .milliseconds(20))
          continue
        }
        spool.remove()
        throw error
      }
    }
    let service = EmulatorService(
      configuration: configuration, buckets: stores, memory: memory, spool: spool)
    let front: any EmulatorFront =
      switch configuration.wireProtocol {
      case .kodo: service
      case .oss: OSSFront(service: service)
      }
    let limits = configuration.limits
    let connections = ConnectionRegistry(
      capacity: ConnectionLimit.effective(limits.maximumConnections))
    let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.backlog, value: 256)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      // Out of descriptors, accept(2) fails at once and would be retried at once: back off.
      .serverChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(AcceptBackoffHandler())
        }
      }
      .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
      .childChannelInitializer { channel in
        service.connectionAccepted()
        // At the cap the idlest open connection gives way; when every one is being answered,
        // this one is closed at once.
        guard let entry = connections.admit(channel) else {
          return channel.eventLoop.makeFailedFuture(ConnectionRefusedOverCap())
        }
        channel.closeFuture.whenComplete { _ in connections.remove(entry) }
        return channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: false)
          try channel.pipeline.syncOperations.addHandler(
            ConnectionHandler(service: front, limits: limits, connection: entry))
        }
      }
    let listener: any Channel
    do {
      listener = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
    } catch {
      spool.remove()
      throw .bindFailed(
        address: authority(host: configuration.host, port: configuration.port),
        reason: ConnectionLimit.reason(error))
    }
    guard let port = listener.localAddress?.port else {
      try? await listener.close()
      spool.remove()
      throw .bindFailed(address: configuration.host, reason: "no local port after binding")
    }
    service.setPort(port)
    return EmulatorServer(
      service: service, listener: listener, connections: connections, host: configuration.host,
      port: port)
  }

  /// The largest `latencyMilliseconds`: one hour.
  public static let maximumLatencyMilliseconds = 3_600_000

  private static func authority(host: String, port: Int) -> String {
    (WireText.contains(host, byte: ":") ? "[" + host + "]" : host) + ":" + String(port)
  }

  private static func loadBuckets(
    _ configuration: EmulatorConfiguration, memory: MemoryBudget, spool: SpoolDirectory
  ) throws(EmulatorError)
    -> [BucketStore]
  {
    guard configuration.uploadTTLSeconds > 0, configuration.memoryLimit > 0 else {
      throw .invalidConfiguration("the upload TTL and the memory limit must be positive")
    }
    guard configuration.failRate >= 0 && configuration.failRate <= 1 else {
      throw .invalidConfiguration("the fail rate must be between 0 and 1")
    }
    if configuration.wireProtocol == .oss {
      guard (try? OSSRegion.id(configuration.region)) == configuration.region else {
        throw .invalidConfiguration(
          "'\(configuration.region)' is not an OSS region ID such as cn-hangzhou")
      }
    }
    guard (0...maximumLatencyMilliseconds).contains(configuration.latencyMilliseconds),
      (0...maximumLatencyMilliseconds).contains(configuration.downloadLatencyMilliseconds)
    else {
      throw .invalidConfiguration(
        "the latency must be between 0 and \(maximumLatencyMilliseconds) milliseconds")
    }
    var names = Set<String>()
    var stores = [BucketStore]()
    let startSeconds = configuration.clock.unixSeconds
    for name in configuration.writableBuckets {
      let isDirectory = configuration.buckets.contains { bucket in
        guard bucket.name == name, case .directory = bucket.source else { return false }
        return true
      }
      guard isDirectory else { throw .notAWritableBucket(name) }
    }
    for bucket in configuration.buckets {
      do {
        try BucketName.validate(bucket.name)
      } catch {
        throw .invalidBucketName(bucket.name)
      }
      guard names.insert(bucket.name).inserted else { throw .duplicateBucket(bucket.name) }
      let isPrivate = configuration.privateBuckets.contains(bucket.name)
      switch bucket.source {
      case .directory(let path) where configuration.writableBuckets.contains(bucket.name):
        let (store, seconds) = try BucketLoading.writableDirectory(path: path, memory: memory)
        stores.append(
          BucketStore(
            name: bucket.name, isPrivate: isPrivate, ctime: seconds, objects: .writable(store),
            summary: "directory " + path + ", writable"))
      case .directory(let path):
        let source = try DirectorySource(root: path)
        stores.append(
          BucketStore(
            name: bucket.name, isPrivate: isPrivate, ctime: source.modificationSeconds,
            source: source, summary: "directory " + path))
      case .synthetic(let count), .flatSynthetic(let count):
        guard (0...1_000_000_000).contains(count) else {
          throw .invalidConfiguration(
            "synthetic bucket '\(bucket.name)': the count must be between 0 and 1000000000")
        }
        stores.append(
          BucketStore(
            name: bucket.name, isPrivate: isPrivate,
            ctime: 1_609_459_200 - Int64(Mixing.mix(configuration.seed, 0x6374) % 31_536_000),
            source: SyntheticSource(
              count: count, seed: configuration.seed, flat: bucket.source.isFlat),
            summary: "synthetic, seed \(configuration.seed)"))
      case .objects(let objects):
        let store = try BucketLoading.memoryStore(objects, memory: memory, spool: spool)
        stores.append(
          BucketStore(
            name: bucket.name, isPrivate: isPrivate, ctime: startSeconds,
            objects: .writable(store), summary: "in memory"))
      case .memory:
        let store = try BucketLoading.memoryStore([], memory: memory, spool: spool)
        stores.append(
          BucketStore(
            name: bucket.name, isPrivate: isPrivate, ctime: startSeconds,
            objects: .writable(store), summary: "in memory, writable"))
      }
    }
    for name in configuration.privateBuckets where !names.contains(name) {
      throw .unknownPrivateBucket(name)
    }
    return stores
  }

  // MARK: Addresses

  /// `http://HOST:PORT`: the uc, rs, rsf and api base URL.
  public var baseURL: String { service.baseURL }

  /// `HOST:PORT`, as `/v4/query` names every service.
  public var authority: String { service.authority }

  /// The credentials whose signatures are accepted.
  public var credentials: Credentials { service.configuration.credentials }

  /// A bucket's download domain, `http://HOST:PORT/dl/BUCKET` (also for unknown names).
  public func downloadDomain(for bucket: String) -> String {
    service.downloadDomain(for: bucket)
  }

  /// The protocol served.
  public var wireProtocol: EmulatorProtocol { service.configuration.wireProtocol }

  /// OSS: the region ID signatures must name.
  public var region: String { service.configuration.region }

  /// OSS: whether signed requests must carry an STS token.
  public var requiresSecurityToken: Bool { service.configuration.securityToken != nil }

  /// Where a bucket's objects are addressed: the download domain on Kodo,
  /// `http://HOST:PORT/BUCKET` (path style) on OSS.
  public func bucketURL(for bucket: String) -> String {
    switch service.configuration.wireProtocol {
    case .kodo: downloadDomain(for: bucket)
    case .oss: baseURL + "/" + bucket
    }
  }

  /// The buckets, sorted by name.
  public var buckets: [ServedBucket] {
    service.bucketNames.compactMap { name in
      guard let bucket = service.buckets[name] else { return nil }
      return ServedBucket(
        name: name, downloadDomain: downloadDomain(for: name), isPrivate: bucket.isPrivate,
        objectCount: bucket.source.count, source: bucket.summary)
    }
  }

  // MARK: Control

  /// The request counters so far.
  public var stats: EmulatorStats { service.stats }

  /// Sets every counter back to zero.
  public func resetStats() {
    service.resetStats()
  }

  /// Schedules a fault for the next `fault.count` matching requests, after those already
  /// scheduled for them.
  public func scheduleFault(_ fault: EmulatorFault) {
    service.schedule(fault)
  }

  /// Drops every scheduled fault; returns how many requests they would still have affected.
  @discardableResult
  public func clearFaults() -> Int {
    service.clearFaults()
  }

  /// The scheduled faults, with their remaining counts.
  public var pendingFaults: [EmulatorFault] { service.pendingFaults }

  /// Stops listening, closes every connection (including hanging ones), removes the spool
  /// folder and lets another emulator claim the `--writable` directories.
  public func shutdown() async throws {
    try? await listener.close()
    for channel in connections.channels {
      try? await channel.close()
    }
    service.spool.remove()
    for bucket in service.buckets.values { bucket.writable?.directory?.claim.release() }
  }

  /// The spool folder (bodies past the in-memory size, parts, large in-memory objects).
  package var spoolPath: String { service.spool.path }

  /// How many spool files exist now.
  package var spoolFileCount: Int { service.spool.fileCount }

  /// How many multipart completions stored their parts where they lay in the session's file,
  /// without a copy (`PartLayout`).
  package var partsJoinedInPlace: Int { service.uploads.joinedInPlace }

  /// The bytes of request bodies held in memory now, and the most ever held at once.
  package var bodyMemory: (used: Int64, peak: Int64) { service.bodyBudget.usage }
}
