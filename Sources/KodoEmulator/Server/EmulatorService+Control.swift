import NIOCore
import NIOHTTP1
import StorageCore

extension EmulatorService {
  /// The unsigned test API under `/_emulator/`:
  /// `GET|DELETE stats`, `GET|POST|DELETE faults`.
  func control(_ name: Substring, _ request: IncomingRequest, reqid: String) -> Reply {
    let method = request.head.method
    switch (name, method) {
    case ("stats", .GET):
      return json(200, Self.statsJSON(stats), reqid: reqid)
    case ("stats", .DELETE):
      resetStats()
      return json(200, Self.statsJSON(stats), reqid: reqid)
    case ("faults", .GET):
      return json(200, Self.faultsJSON(pendingFaults), reqid: reqid)
    case ("faults", .POST):
      // A web page can POST text/plain to any address without asking first; it cannot send
      // application/json that way (CORS preflight), so requiring it keeps pages out.
      guard Self.isJSON(request.head.headers.first(name: "Content-Type")) else {
        return error(
          415, "the control API takes Content-Type: application/json", reqid: reqid)
      }
      guard let text = String(validating: request.body, as: UTF8.self) else {
        return error(400, "the body must be a UTF-8 JSON object", reqid: reqid)
      }
      do {
        let fault = try EmulatorFault.parse(json: text)
        schedule(fault)
        return json(200, Self.faultsJSON(pendingFaults), reqid: reqid)
      } catch {
        return self.error(400, error.message, reqid: reqid)
      }
    case ("faults", .DELETE):
      let cleared = clearFaults()
      var buffer = ByteBuffer()
      buffer.writeStaticString("{\"cleared\":")
      buffer.writeDecimal(cleared)
      buffer.writeStaticString("}")
      return json(200, buffer, reqid: reqid)
    case ("stats", _), ("faults", _):
      return error(405, "method not allowed", reqid: reqid)
    default:
      return error(
        404, "no such control endpoint (use /_emulator/stats or /_emulator/faults)",
        reqid: reqid)
    }
  }

  /// Whether a `Content-Type` value is `application/json`, parameters (`; charset=utf-8`) allowed.
  static func isJSON(_ contentType: String?) -> Bool {
    guard let contentType else { return false }
    let mediaType = WireText.cut(contentType, at: ";")?.head ?? contentType[...]
    return WireText.sameIgnoringASCIICase(WireText.trimmingSpaces(mediaType), "application/json")
  }

  static func statsJSON(_ stats: EmulatorStats) -> ByteBuffer {
    var buffer = ByteBuffer()
    let fields: [(StaticString, Int)] = [
      ("total", stats.total), ("query", stats.query), ("buckets", stats.buckets),
      ("bucketInfo", stats.bucketInfo), ("domains", stats.domains), ("list", stats.list),
      ("stat", stats.stat), ("download", stats.download),
      ("upload", stats.upload), ("write", stats.write), ("other", stats.other),
      ("control", stats.control), ("connections", stats.connections), ("faults", stats.faults),
    ]
    buffer.writeStaticString("{")
    for (position, field) in fields.enumerated() {
      if position > 0 { buffer.writeStaticString(",") }
      buffer.writeJSONName(field.0)
      buffer.writeDecimal(field.1)
    }
    buffer.writeStaticString("}")
    return buffer
  }

  static func faultsJSON(_ faults: [EmulatorFault]) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.writeStaticString("{\"pending\":[")
    for (position, fault) in faults.enumerated() {
      if position > 0 { buffer.writeStaticString(",") }
      buffer.writeStaticString("{\"endpoint\":")
      buffer.writeJSONString(fault.endpoint.rawValue)
      buffer.writeStaticString(",\"mode\":")
      buffer.writeJSONString(fault.mode.name)
      if case .status(let status, let body) = fault.mode {
        buffer.writeStaticString(",\"status\":")
        buffer.writeDecimal(status)
        if let body {
          buffer.writeStaticString(",\"body\":")
          buffer.writeJSONString(body)
        }
      }
      if case .skewedDate(let seconds) = fault.mode {
        buffer.writeStaticString(",\"skew\":")
        buffer.writeString(String(seconds))
      }
      buffer.writeStaticString(",\"count\":")
      buffer.writeDecimal(fault.count)
      buffer.writeStaticString("}")
    }
    buffer.writeStaticString("]}")
    return buffer
  }
}
