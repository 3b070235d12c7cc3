import ArgumentParser
import StorageCore

struct Buckets: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "buckets",
    abstract: "List the account's buckets, including buckets shared with it.",
    discussion: """
      Examples:
        kodo buckets
        kodo buckets --json | jq -r .name
      """
  )

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func execute(_ context: Context) async throws {
    try await Self.list(context)
  }

  /// The account's buckets, one line each (also `kodo ls` with no bucket anywhere).
  static func list(_ context: Context) async throws {
    let buckets = try await context.provider().buckets()
    let output = OutputStream.standardOutput()
    if context.options.json {
      for bucket in buckets {
        var line = JSONLine()
        line.string("name", bucket.name)
        line.string("region", bucket.region)
        line.bool("private", bucket.isPrivate)
        line.string("ctime", bucket.createdAt.map(Timestamp.rfc3339(unixSeconds:)))
        line.string("shared", bucket.shared)
        line.string("remark", bucket.remark)
        line.string("storageClass", bucket.storageClass?.name)
        try output.write(line)
      }
    } else {
      let names = buckets.map { DisplayText(escaping: $0.name) }
      // The region as the user configures it (OSS lists oss-cn-hangzhou for cn-hangzhou).
      let kind = try context.providerKind()
      let regions = buckets.map { bucket in
        DisplayText(escaping: bucket.region.map { kind.configuredRegion(listed: $0) } ?? "-")
      }
      let width = max(4, names.map(\.text.count).max() ?? 0)
      let regionWidth = regions.map(\.text.count).max() ?? 0
      for ((bucket, name), region) in zip(zip(buckets, names), regions) {
        var row = Human.padRight(name, width)
        row += "  " + Human.padRight(region, regionWidth)
        row +=
          "  "
          + Human.padRight(DisplayText(escaping: bucket.createdAt.map(Human.localTime) ?? "-"), 16)
        var notes: [DisplayText] = []
        if bucket.isPrivate == true { notes.append("private") }
        if let shared = bucket.shared { notes.append("shared (\(shared))") }
        if let remark = bucket.remark { notes.append(DisplayText(escaping: remark)) }
        row += "  " + DisplayText.joined(notes, separator: ", ")
        try output.line(DisplayText(escaping: row.text.trimmingTrailingSpaces()))
      }
    }
    try output.flush()
  }
}

struct Domains: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "domains",
    abstract: "List the base URLs a bucket's objects can be fetched from.",
    discussion: """
      On Kodo, the domains bound to the bucket.

      Examples:
        kodo domains photos
        kodo domains --json photos
      """
  )

  @Argument(
    help: ArgumentHelp("The bucket (default: the configured one).", valueName: "BUCKET"),
    completion: ShellCompletion.bucket)
  var bucket: String?

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func execute(_ context: Context) async throws {
    let bucket = try context.bucket(self.bucket)
    let provider = try context.provider((any DomainListing).self, for: "bucket domains to list")
    try provider.validateBucketName(bucket)
    let domains = try await provider.domains(bucket: bucket)
    let output = OutputStream.standardOutput()
    for domain in domains {
      if context.options.json {
        var line = JSONLine()
        line.string("domain", domain.domain)
        line.string("baseURL", domain.baseURL)
        if domain.kind != "bound" { line.string("kind", domain.kind) }
        try output.write(line)
      } else {
        // The base URL, scheme included, as --domain and the config's domains take it.
        try output.line(DisplayText(escaping: domain.baseURL))
      }
    }
    try output.flush()
  }
}

extension String {
  /// The string without spaces at its end.
  fileprivate func trimmingTrailingSpaces() -> String {
    var text = Substring(self)
    while text.last == " " { text.removeLast() }
    return String(text)
  }
}
