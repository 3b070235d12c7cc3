import ArgumentParser
import KodoCore
import StorageCore

struct Stat: KodoCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show every field Kodo keeps about one object.",
    discussion: """
      Times are shown both in local time and exactly as Kodo stores them (putTime in 100 ns units).

      Examples:
        kodo stat photos 2024/beach.jpg
        kodo stat 2024/beach.jpg              # in the configured default bucket
        kodo stat --json photos 2024/beach.jpg | jq .size
      """
  )

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  @OptionGroup var object: ObjectArguments

  func execute(_ context: Context) async throws {
    let (bucket, key) = try object.resolve(context)
    let stat = try await context.client().stat(bucket: bucket, key: key)
    let output = OutputStream(fileDescriptor: 1)
    if context.options.json {
      var line = JSONLine()
      stat.object.appendJSONFields(to: &line)
      line.string("expiration", stat.expiration.map(KodoTime.rfc3339(unixSeconds:)))
      line.string("transitionToIA", stat.transitionToIA.map(KodoTime.rfc3339(unixSeconds:)))
      line.string(
        "transitionToArchiveIR", stat.transitionToArchiveIR.map(KodoTime.rfc3339(unixSeconds:)))
      line.string(
        "transitionToArchive", stat.transitionToArchive.map(KodoTime.rfc3339(unixSeconds:)))
      line.string(
        "transitionToDeepArchive", stat.transitionToDeepArchive.map(KodoTime.rfc3339(unixSeconds:)))
      try output.write(bytes: line.finish())
    } else {
      try output.write(Self.describe(stat, bucket: bucket))
    }
    try output.flush()
  }

  static func describe(_ stat: ObjectStat, bucket: String) -> String {
    let object = stat.object
    var rows: [(String, String)] = [
      ("Bucket", DisplayText.escaped(bucket)),
      ("Key", DisplayText.escaped(object.key)),
      ("Size", "\(object.size) bytes (\(Human.size(object.size)))"),
      ("Hash", DisplayText.escaped(object.hash)),
      ("MIME type", DisplayText.escaped(object.mimeType)),
      ("Put time", timeRow(hundredNanoseconds: object.putTime)),
      ("Storage class", "\(object.storageClass.name) (type \(object.storageClass.code))"),
      ("Status", object.status.name),
    ]
    if let lastModify = object.lastModify {
      rows.append(("Last modified", timeRow(hundredNanoseconds: lastModify)))
    }
    if let restore = object.restoreStatus { rows.append(("Restore status", restore.name)) }
    if let md5 = object.md5 { rows.append(("MD5", DisplayText.escaped(md5))) }
    if let endUser = object.endUser { rows.append(("End user", DisplayText.escaped(endUser))) }
    let lifecycle: [(String, Int64?)] = [
      ("Expires", stat.expiration), ("To IA", stat.transitionToIA),
      ("To archive IR", stat.transitionToArchiveIR), ("To archive", stat.transitionToArchive),
      ("To deep archive", stat.transitionToDeepArchive),
    ]
    for (label, value) in lifecycle {
      if let value {
        rows.append(
          (
            label,
            "\(Human.localTimeLong(value))  (\(KodoTime.rfc3339(unixSeconds: value)), \(value))"
          ))
      }
    }
    if let parts = object.parts {
      rows.append(("Parts", parts.map(String.init).joined(separator: ", ")))
    }
    for (name, value) in (object.meta ?? [:]).sorted(by: { $0.key < $1.key }) {
      rows.append(("x-qn-meta-" + DisplayText.escaped(name), DisplayText.escaped(value)))
    }
    let width = rows.map(\.0.count).max() ?? 0
    return rows.map { Human.padRight($0.0 + ":", width + 1) + " " + $0.1 }.joined(separator: "\n")
      + "\n"
  }

  private static func timeRow(hundredNanoseconds value: Int64) -> String {
    "\(Human.localTimeLong(KodoTime.unixSeconds(hundredNanoseconds: value)))  (\(KodoTime.rfc3339(hundredNanoseconds: value)), \(value))"
  }
}
