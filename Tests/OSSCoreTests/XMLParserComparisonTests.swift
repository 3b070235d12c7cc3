import Foundation
import KodoEmulator
import OSSCore
import PropertyBased
import StorageCore
import Testing

/// OSSCore's pull reader against libxml2's xmlTextReader and Foundation's XMLParser on a
/// realistic page: ListObjectsV2, 1000 objects, `encoding-type=url`, hostile keys.
///
/// The equality test always runs. The measurement runs with `OSS_XML_BENCH=1` (build in release
/// for meaningful numbers: `bench/oss-xml-parsers.sh`); it prints CPU time per page.
@Suite("XML parsers compared")
struct XMLParserComparisonTests {
  static func page(count: Int = 1000) -> [UInt8] {
    var rng = seededGenerator(42)
    return OSSAnswers.listObjectsXML(randomListing(count: count, version2: true, using: &rng))
  }

  @Test func allThreeParsersReadTheSamePage() throws {
    let xml = Self.page(count: 200)
    let ours = try OSSAnswers.listObjects(xml, encodingType: "url")
    #expect(ours.objects.count == 200)
    #expect(try LibXML2Listing.decode(xml) == ours)
    #expect(try FoundationListing.decode(xml) == ours)
  }

  @Test(.enabled(if: ProcessInfo.processInfo.environment["OSS_XML_BENCH"] != nil))
  func measureCPUPerPage() throws {
    let xml = Self.page()
    let rounds = Int(ProcessInfo.processInfo.environment["OSS_XML_BENCH_ROUNDS"] ?? "") ?? 200
    let parsers: [(String, ([UInt8]) throws -> OSSListObjectsResult)] = [
      ("OSSCore XMLPullReader", { try OSSAnswers.listObjects($0, encodingType: "url") }),
      ("libxml2 xmlTextReader", LibXML2Listing.decode),
      ("FoundationXML XMLParser", FoundationListing.decode),
    ]
    var lines = ["page: \(xml.count) bytes, 1000 objects, \(rounds) rounds"]
    for (name, parse) in parsers {
      _ = try parse(xml)  // warm up
      var best = Double.infinity
      var total = 0.0
      for _ in 0..<rounds {
        let start = threadCPUSeconds()
        let result = try parse(xml)
        let spent = threadCPUSeconds() - start
        #expect(result.objects.count == 1000)
        best = min(best, spent)
        total += spent
      }
      let mean = total / Double(rounds)
      lines.append(
        "\(name): \(String(format: "%.3f", mean * 1000)) ms CPU per page (best \(String(format: "%.3f", best * 1000)) ms), \(String(format: "%.0f", Double(xml.count) / mean / 1e6)) MB/s"
      )
    }
    let start = threadCPUSeconds()
    for _ in 0..<rounds { #expect(OSSAnswers.listContinuation(xml, encodingType: "url") != nil) }
    let quick = (threadCPUSeconds() - start) / Double(rounds)
    lines.append(
      "OSSCore listContinuation (the next marker only): \(String(format: "%.4f", quick * 1000)) ms CPU per page"
    )
    var crcInput = [UInt8](repeating: 0, count: 64 << 20)
    var rng = seededGenerator(9)
    for index in stride(from: 0, to: crcInput.count, by: 8) {
      withUnsafeBytes(of: rng.next()) { crcInput.replaceSubrange(index..<index + 8, with: $0) }
    }
    var bestCRC = Double.infinity
    for _ in 0..<5 {
      let start = threadCPUSeconds()
      _ = CRC64.checksum(crcInput)
      bestCRC = min(bestCRC, threadCPUSeconds() - start)
    }
    lines.append(
      "CRC-64/ECMA: \(String(format: "%.0f", Double(crcInput.count) / bestCRC / 1e6)) MB/s over 64 MiB"
    )
    print(lines.joined(separator: "\n"))
  }
}
