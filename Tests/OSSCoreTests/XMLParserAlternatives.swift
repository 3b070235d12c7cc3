import CLibXML2
import Foundation
import OSSCore
import StorageCore

#if canImport(FoundationXML)
  import FoundationXML
#endif

// The two other ways to read a ListObjects(V2) page that were measured against OSSCore's own
// pull reader (`XMLParserComparisonTests`): libxml2's xmlTextReader and Foundation's XMLParser.
// Each produces the same `OSSListObjectsResult` with the same decoding (strict %XX, exact
// times), so the comparison is of the parsers alone. Test code only: OSSCore uses neither.

/// Why an alternative parser gave up.
struct AlternativeParseError: Error, CustomStringConvertible {
  var description: String
}

/// Fills a listing from (element path, text) pairs, as both alternatives report them.
struct ListingAssembler {
  var result = OSSListObjectsResult(name: "")
  var object = OSSObjectSummary(key: "", lastModified: Timestamp(unixSeconds: 0), size: 0)
  var owner = OSSOwner(id: "", displayName: "")

  mutating func text(_ element: String, parent: String, _ bytes: UnsafeBufferPointer<UInt8>) throws
  {
    func string() throws -> String {
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw AlternativeParseError(description: "\(element) is not UTF-8")
      }
      return text
    }
    func decoded() throws -> String {
      guard let text = PercentEncoding.decode(utf8: bytes) else {
        throw AlternativeParseError(description: "\(element) is not percent-encoding")
      }
      return text
    }
    func count() throws -> Int64 {
      guard let value = Int64(try string()), value >= 0 else {
        throw AlternativeParseError(description: "\(element) is not a count")
      }
      return value
    }
    switch (parent, element) {
    case ("Contents", "Key"): object.key = try decoded()
    case ("Contents", "LastModified"):
      guard let time = OSSTime.parseISO8601(bytes: bytes) else {
        throw AlternativeParseError(description: "LastModified is not a time")
      }
      object.lastModified = time
    case ("Contents", "Size"): object.size = try count()
    case ("Contents", "ETag"):
      let etag = try string()
      object.etag =
        etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count >= 2
        ? String(etag.dropFirst().dropLast()) : etag
    case ("Contents", "Type"): object.type = try string()
    case ("Contents", "StorageClass"): object.storageClass = try string()
    case ("Contents", "RestoreInfo"): object.restore = OSSRestore(try string())
    case ("Owner", "ID"): owner.id = try string()
    case ("Owner", "DisplayName"): owner.displayName = try string()
    case ("CommonPrefixes", "Prefix"): result.commonPrefixes.append(try decoded())
    case ("ListBucketResult", "Name"): result.name = try string()
    case ("ListBucketResult", "Prefix"): result.prefix = try decoded()
    case ("ListBucketResult", "Delimiter"): result.delimiter = try decoded()
    case ("ListBucketResult", "StartAfter"): result.startAfter = try decoded()
    case ("ListBucketResult", "ContinuationToken"): result.continuationToken = try decoded()
    case ("ListBucketResult", "NextContinuationToken"): result.nextContinuationToken = try decoded()
    case ("ListBucketResult", "Marker"): result.marker = try decoded()
    case ("ListBucketResult", "NextMarker"): result.nextMarker = try decoded()
    case ("ListBucketResult", "MaxKeys"): result.maxKeys = try count()
    case ("ListBucketResult", "KeyCount"): result.keyCount = try count()
    case ("ListBucketResult", "EncodingType"): result.encodingType = try string()
    case ("ListBucketResult", "IsTruncated"): result.isTruncated = try string() == "true"
    default: break
    }
  }

  mutating func start(_ element: String) {
    switch element {
    case "Contents":
      object = OSSObjectSummary(key: "", lastModified: Timestamp(unixSeconds: 0), size: 0)
    case "Owner": owner = OSSOwner(id: "", displayName: "")
    default: break
    }
  }

  mutating func end(_ element: String) {
    switch element {
    case "Contents": result.objects.append(object)
    case "Owner": object.owner = owner
    default: break
    }
  }
}

/// libxml2's xmlTextReader (a pull parser in C), through the CLibXML2 system library.
enum LibXML2Listing {
  static func decode(_ bytes: [UInt8]) throws -> OSSListObjectsResult {
    try bytes.withUnsafeBufferPointer { buffer throws -> OSSListObjectsResult in
      guard
        let reader = buffer.withMemoryRebound(
          to: CChar.self,
          { chars in
            xmlReaderForMemory(
              chars.baseAddress, Int32(chars.count), nil, "UTF-8",
              Int32(XML_PARSE_NONET.rawValue))
          })
      else { throw AlternativeParseError(description: "xmlReaderForMemory failed") }
      defer { xmlFreeTextReader(reader) }
      var assembler = ListingAssembler()
      var path: [String] = []
      var text: [UInt8] = []
      text.reserveCapacity(4096)
      while true {
        let status = xmlTextReaderRead(reader)
        if status == 0 { break }
        guard status == 1 else {
          throw AlternativeParseError(description: "libxml2: not well-formed")
        }
        switch xmlTextReaderNodeType(reader) {
        case Int32(XML_READER_TYPE_ELEMENT.rawValue):
          guard let name = xmlTextReaderConstLocalName(reader) else { continue }
          let element = String(cString: name)
          text.removeAll(keepingCapacity: true)
          if xmlTextReaderIsEmptyElement(reader) == 1 {
            try text.withUnsafeBufferPointer {
              try assembler.text(element, parent: path.last ?? "", $0)
            }
          } else {
            assembler.start(element)
            path.append(element)
          }
        case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue),
          Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue):
          if let value = xmlTextReaderConstValue(reader) {
            text.append(contentsOf: UnsafeBufferPointer(start: value, count: strlen(value)))
          }
        case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
          guard let element = path.popLast() else { continue }
          try text.withUnsafeBufferPointer {
            try assembler.text(element, parent: path.last ?? "", $0)
          }
          text.removeAll(keepingCapacity: true)
          assembler.end(element)
        default: break
        }
      }
      return assembler.result
    }
  }
}

/// Foundation's XMLParser (SAX callbacks to a delegate object).
enum FoundationListing {
  final class Delegate: NSObject, XMLParserDelegate {
    var assembler = ListingAssembler()
    var path: [String] = []
    var text = ""
    var failure: (any Error)?

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
      qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
      assembler.start(elementName)
      path.append(elementName)
      text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
      text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
      qualifiedName qName: String?
    ) {
      path.removeLast()
      do {
        var utf8 = text
        try utf8.withUTF8 { try assembler.text(elementName, parent: path.last ?? "", $0) }
      } catch {
        failure = error
        parser.abortParsing()
      }
      text = ""
      assembler.end(elementName)
    }
  }

  static func decode(_ bytes: [UInt8]) throws -> OSSListObjectsResult {
    let parser = XMLParser(data: Data(bytes))
    let delegate = Delegate()
    parser.delegate = delegate
    parser.shouldResolveExternalEntities = false
    guard parser.parse() else {
      throw delegate.failure ?? parser.parserError
        ?? AlternativeParseError(description: "XMLParser failed")
    }
    return delegate.assembler.result
  }
}

/// CPU time of the calling thread, in seconds.
func threadCPUSeconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
