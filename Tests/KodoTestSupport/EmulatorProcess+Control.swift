import Foundation
import KodoCore
import StorageCore

/// The emulator's unsigned control API (`/_emulator/faults`, `/_emulator/stats`), for tests that
/// drive `kodo` against a spawned emulator.
extension EmulatorProcess {
  private static let transport: CurlTransport = {
    var configuration = CurlTransport.Configuration()
    configuration.proxy = .none
    configuration.idleTimeout = .seconds(10)
    return CurlTransport(configuration: configuration)
  }()

  /// Schedules a fault: the next `count` requests to `endpoint` (`list`, `stat`, `buckets`,
  /// `domains`, `download`, `*`, …) get `mode` (`status`, `drop`, `html`, `truncated`,
  /// `short-body`, `hang`, `no-reqid`, `stall-after-headers`).
  public func scheduleFault(
    endpoint: String, mode: String, count: Int = 1, status: Int? = nil, body: String? = nil
  ) async throws {
    var members = [
      "\"endpoint\":\"\(endpoint)\"", "\"mode\":\"\(mode)\"", "\"count\":\(count)",
    ]
    if let status { members.append("\"status\":\(status)") }
    if let body { members.append("\"body\":" + Self.jsonString(body)) }
    let response = try await Self.transport.send(
      HTTPRequest(
        method: "POST", url: baseURL + "/_emulator/faults",
        headers: ["Content-Type": "application/json"],
        body: Array(("{" + members.joined(separator: ",") + "}").utf8)))
    guard response.status == 200 else {
      throw EmulatorStartFailure(
        output: "scheduling a fault failed: \(String(decoding: response.body, as: UTF8.self))")
    }
  }

  /// Drops every pending fault.
  public func clearFaults() async throws {
    _ = try await Self.transport.send(
      HTTPRequest(method: "DELETE", url: baseURL + "/_emulator/faults"))
  }

  /// The emulator's request counters (`total`, `list`, `stat`, `download`, `faults`, …).
  public func stats() async throws -> [String: Int64] {
    let response = try await Self.transport.send(
      HTTPRequest(method: "GET", url: baseURL + "/_emulator/stats"))
    let value = try JSONValue.parse(String(decoding: response.body, as: UTF8.self))
    var counters: [String: Int64] = [:]
    for member in value.objectMembers ?? [] {
      if case .number(let text) = member.value, let number = Int64(text) {
        counters[member.name] = number
      }
    }
    return counters
  }

  /// Resets every counter to zero.
  public func resetStats() async throws {
    _ = try await Self.transport.send(
      HTTPRequest(method: "DELETE", url: baseURL + "/_emulator/stats"))
  }

  /// `text` as a JSON string literal.
  static func jsonString(_ text: String) -> String {
    var output = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case _ where scalar.value < 0x20:
        output += String(format: "\\u%04x", scalar.value)
      default: output.unicodeScalars.append(scalar)
      }
    }
    return output + "\""
  }
}

/// Writes a config file (mode 0600) whose hosts all point at `baseURL`; `extra` is inserted as
/// further top-level members (`"bucket":"b",`).
public func writeTestConfig(
  baseURL: String, accessKey: String = "ak", secretKey: String = "sk", extra: String = ""
) throws -> String {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent(
    "kodo-test-\(UUID()).json"
  ).path
  let text =
    "{\"accessKey\":\(EmulatorProcess.jsonString(accessKey)),\"secretKey\":\(EmulatorProcess.jsonString(secretKey)),"
    + extra
    + "\"hosts\":{\"uc\":\"\(baseURL)\",\"rs\":\"\(baseURL)\",\"rsf\":\"\(baseURL)\",\"api\":\"\(baseURL)\"}}"
  guard
    FileManager.default.createFile(
      atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
  else {
    throw EmulatorStartFailure(output: "cannot write \(path)")
  }
  return path
}
