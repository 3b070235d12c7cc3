import ArgumentParser
import KodoCore
import StorageCore

struct Buckets: KodoCommand {
  static let configuration = CommandConfiguration(
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
    let client = try context.client()
    var buckets: [Bucket]
    do {
      buckets = try await client.bucketsWithDetails()
    } catch {
      // Older deployments have no /v2/buckets: fall back to names only.
      guard [.notFound, .rejected, .protocolError].contains(error.kind) else { throw error }
      buckets = try await client.buckets()
    }
    let output = OutputStream(fileDescriptor: 1)
    if context.options.json {
      for bucket in buckets {
        var line = JSONLine()
        line.string("name", bucket.name)
        line.string("region", bucket.region)
        line.bool("private", bucket.isPrivate)
        line.string("ctime", bucket.createdAt.map(KodoTime.rfc3339(unixSeconds:)))
        line.string("shared", bucket.shared)
        line.string("remark", bucket.remark)
        try output.write(bytes: line.finish())
      }
    } else {
      let width = max(4, buckets.map { DisplayText.escaped($0.name).count }.max() ?? 0)
      for bucket in buckets {
        var row = Human.padRight(DisplayText.escaped(bucket.name), width)
        row += "  " + Human.padRight(bucket.region ?? "-", 14)
        row += "  " + Human.padRight(bucket.createdAt.map(Human.localTime) ?? "-", 16)
        var notes: [String] = []
        if bucket.isPrivate == true { notes.append("private") }
        if let shared = bucket.shared { notes.append("shared (\(shared))") }
        if let remark = bucket.remark { notes.append(DisplayText.escaped(remark)) }
        row += "  " + notes.joined(separator: ", ")
        while row.hasSuffix(" ") { row.removeLast() }
        try output.write(row + "\n")
      }
    }
    try output.flush()
  }
}

struct Domains: KodoCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the download domains bound to a bucket.",
    discussion: """
      Examples:
        kodo domains photos
        kodo domains --json photos
      """
  )

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  @Argument(help: ArgumentHelp("The bucket (default: the configured one).", valueName: "BUCKET"))
  var bucket: String?

  func execute(_ context: Context) async throws {
    let bucket = try context.bucket(self.bucket)
    let domains = try await context.client().domains(bucket)
    let output = OutputStream(fileDescriptor: 1)
    for domain in domains {
      if context.options.json {
        var line = JSONLine()
        line.string("domain", domain)
        line.string("baseURL", DownloadDomain.baseURL(forBoundDomain: domain))
        try output.write(bytes: line.finish())
      } else {
        try output.write(DisplayText.escaped(domain) + "\n")
      }
    }
    try output.flush()
  }
}
