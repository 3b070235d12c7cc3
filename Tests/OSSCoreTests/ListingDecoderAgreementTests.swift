import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// `OSSAnswers.listObjects` reads a page's `<Contents>` children the fast way
/// (`XMLPullReader.readSimpleElement`) and falls back to the general reader for anything else.
/// These checks hold it to the decoder it replaced (`ReferenceListingDecoder`, the general
/// reader alone): on generated, hostile and broken pages both give the same page or the same
/// error, word for word.
@Suite("OSS listing decoder against the general reader")
struct ListingDecoderAgreementTests {
  /// The outcome of a decode: the page, or the error's message.
  enum Outcome: Equatable, CustomStringConvertible {
    case page(OSSListObjectsResult)
    case failure(String)

    var description: String {
      switch self {
      case .page(let page): "page of \(page.objects.count) objects"
      case .failure(let message): "failure: \(message)"
      }
    }
  }

  static func outcome(_ decode: () throws(StorageError) -> OSSListObjectsResult) -> Outcome {
    do {
      return .page(try decode())
    } catch {
      return .failure(error.message + " | \(error.kind) | \(error.requestID ?? "")")
    }
  }

  /// Checks that both decoders agree on `bytes`, with and without `encoding-type=url`.
  static func expectAgreement(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
    for encodingType in ["url", nil] as [String?] {
      let fast = outcome { () throws(StorageError) in
        try OSSAnswers.listObjects(bytes, encodingType: encodingType, requestID: "RID")
      }
      let reference = outcome { () throws(StorageError) in
        try ReferenceListingDecoder.listObjects(bytes, encodingType: encodingType, requestID: "RID")
      }
      #expect(
        fast == reference, "\(String(decoding: bytes.prefix(400), as: UTF8.self))",
        sourceLocation: sourceLocation)
    }
  }

  /// What a `<Contents>` child may look like in an answer that is not the emulator's: each
  /// either takes the fast way or must be sent back to the general reader.
  static let children: [String] = [
    "<Key>a%20b</Key>", "<Key>plain</Key>", "<Key></Key>", "<Key>%zz</Key>", "<Key>%C3%28</Key>",
    "<Key>&amp;x</Key>", "<Key>&quot;q&quot;</Key>", "<Key >k</Key>", "<Key>k</Key >",
    "<Key>k</Key2>", "<Key>\r\n</Key>", "<Key><![CDATA[c]]></Key>", "<Key>a<!-- c -->b</Key>",
    "<Key a=\"1\">k</Key>", "<Key/>", "<Key>\u{FF}</Key>",
    "<LastModified>2020-05-18T05:45:54.000Z</LastModified>",
    "<LastModified>2020-02-30T00:00:00.000Z</LastModified>", "<LastModified></LastModified>",
    "<LastModified> 2020-05-18T05:45:54Z</LastModified>",
    "<Size>1</Size>", "<Size> 42 </Size>", "<Size>-1</Size>", "<Size>9223372036854775808</Size>",
    "<Size></Size>", "<Size>1&#48;</Size>",
    "<ETag>&quot;5B3C1A2E053D763E1B002CC607C5A0FE&quot;</ETag>", "<ETag>\"abc\"</ETag>",
    "<ETag>&quot;&quot;</ETag>", "<ETag>&quot;a&quot;b</ETag>", "<ETag>&quot;a</ETag>",
    "<ETag>&quot;\u{FF}&quot;</ETag>", "<ETag>&quot;a&amp;b&quot;</ETag>", "<ETag></ETag>",
    "<ETag>&quot;\"x\"&quot;</ETag>", "<ETag>plain</ETag>",
    "<Type>Normal</Type>", "<Type>&quot;Normal&quot;</Type>", "<StorageClass>IA</StorageClass>",
    "<StorageClass>\u{FF}</StorageClass>",
    "<RestoreInfo>ongoing-request=&quot;true&quot;</RestoreInfo>", "<RestoreInfo>x</RestoreInfo>",
    "<RestoreInfo>&quot;x&quot;</RestoreInfo>",
    "<Owner><ID>1</ID><DisplayName>d</DisplayName></Owner>", "<Owner></Owner>", "<Owner/>",
    "<Owner>text</Owner>", "<Owner> </Owner>", "<Unknown>x</Unknown>",
    "<Unknown>&quot;x&quot;</Unknown>",
    "<Unknown><Deeper>x</Deeper></Unknown>", "<Unknown>\u{01}</Unknown>", "<1Bad>x</1Bad>",
    " ", "\n\t", "<!-- c -->", "<?pi x?>", "text", "&amp;", "<", "</Contents>", "<Contents>",
  ]

  @Test func generatedPagesDecodeTheSame() async {
    await seededCheck(
      count: iterations(60),
      input: randomInput { rng in
        OSSAnswers.listObjectsXML(
          randomListing(
            count: rng.below(40), version2: rng.below(2) == 0, encoded: rng.below(4) != 0,
            using: &rng))
      }
    ) { bytes in
      Self.expectAgreement(bytes)
    }
  }

  @Test func handWrittenObjectsDecodeTheSame() async {
    let head =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult><Name>b</Name>"
      + "<EncodingType>url</EncodingType><IsTruncated>false</IsTruncated>"
    let tail = "</ListBucketResult>"
    await seededCheck(
      count: iterations(400),
      input: randomInput { rng in
        var xml = head
        for _ in 0...rng.below(4) {
          xml += "<Contents>"
          var chosen = [
            "<Key>k%2F" + String(rng.below(1000)) + "</Key>",
            "<LastModified>2020-05-18T05:45:54.123Z</LastModified>",
            "<ETag>&quot;5B3C1A2E053D763E1B002CC607C5A0FE&quot;</ETag>", "<Type>Normal</Type>",
            "<Size>" + String(rng.below(1 << 20)) + "</Size>",
            "<StorageClass>Standard</StorageClass>",
          ]
          for _ in 0...rng.below(3) {
            let child = rng.element(Self.children)
            if rng.below(2) == 0 && !chosen.isEmpty {
              chosen[rng.below(chosen.count)] = child
            } else {
              chosen.insert(child, at: rng.below(chosen.count + 1))
            }
          }
          xml += chosen.joined(separator: rng.below(3) == 0 ? "\n  " : "")
          xml += "</Contents>"
        }
        return Array((xml + tail).utf8)
      }
    ) { bytes in
      Self.expectAgreement(bytes)
    }
  }

  @Test func mutatedPagesDecodeTheSame() async {
    let sources: [[UInt8]] = {
      var rng = seededGenerator(23)
      return [
        OSSAnswers.listObjectsXML(randomListing(count: 4, version2: false, using: &rng)),
        OSSAnswers.listObjectsXML(randomListing(count: 4, version2: true, using: &rng)),
        OSSAnswers.listObjectsXML(
          randomListing(count: 3, version2: true, encoded: false, using: &rng)),
      ]
    }()
    let tokens = (Self.children + ["</", "/>", "&quot;", "\"", "%", "\u{0}", "</Key>", "<Key>"])
      .map { Array($0.utf8) }
    await seededCheck(
      count: iterations(600),
      input: randomInput { rng in rng.mutated(sources, inserting: tokens) }
    ) { bytes in
      Self.expectAgreement(bytes)
    }
  }

  @Test func everyTruncationFailsTheSame() {
    var rng = seededGenerator(29)
    let xml = OSSAnswers.listObjectsXML(randomListing(count: 3, version2: true, using: &rng))
    for length in 0...xml.count {
      Self.expectAgreement(Array(xml[0..<length]))
    }
  }
}

@Suite("XML text scanned eight bytes at a time")
struct PlainTextScanTests {
  static func expected(_ word: UInt64) -> Bool {
    (0..<8).contains { shift in
      let byte = UInt8(truncatingIfNeeded: word >> (8 * UInt64(shift)))
      return byte < 0x20 || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&")
    }
  }

  @Test func everyByteValueAtEveryPlaceIsSeen() {
    let filler = UInt64(0x6161_6161_6161_6161)
    for place in 0..<8 {
      for value in 0...255 {
        let shift = UInt64(8 * place)
        let word = (filler & ~(0xFF << shift)) | (UInt64(value) << shift)
        #expect(XMLPullReader.mayHoldMarkup(word) == Self.expected(word), "\(value) at \(place)")
      }
    }
  }

  @Test func randomWordsAreSeenExactly() {
    var rng = seededGenerator(31)
    let bytes: [UInt8] = [
      0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x25, 0x26, 0x27, 0x3B, 0x3C, 0x3D, 0x7F, 0x80, 0xFF,
    ]
    for _ in 0..<20_000 {
      var word: UInt64 = 0
      for place in 0..<8 {
        let byte = rng.below(3) == 0 ? rng.element(bytes) : UInt8(rng.below(256))
        word |= UInt64(byte) << UInt64(8 * place)
      }
      #expect(XMLPullReader.mayHoldMarkup(word) == Self.expected(word))
    }
  }
}
