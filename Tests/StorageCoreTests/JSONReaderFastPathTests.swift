import Foundation
import StorageCore
import Testing

/// The list decoder's fast paths (issue 23) read exactly what the plain ones read: member names
/// matched without making strings, and repeated values shared between objects.
@Suite("JSONReader's fast paths agree with its plain readers")
struct JSONReaderFastPathTests {
  /// Names as `readMembers` gives them and as `readObject` does, for each member of `json`.
  static func names(_ json: String) throws -> (fast: [String], plain: [String]) {
    var fast: [String] = []
    var reader = JSONReader(Array(json.utf8))
    try reader.readMembers { (_, name) throws(JSONReader.Failure) in fast.append(name.string) }
    var plain: [String] = []
    reader = JSONReader(Array(json.utf8))
    try reader.readObject { (_, name) throws(JSONReader.Failure) in plain.append(name) }
    return (fast, plain)
  }

  @Test func namesOfEveryShapeReadAsReadObjectReadsThem() throws {
    let json = #"""
      {"key":1,"":2,"\u006bey":3,"sixteen-bytes-16":4,"seventeen-bytes-1":5,"é":6,"a\"b":7,
       "a\\b":8,"transitionToDeepArchive":9,"x-qn-meta":10,"k\/y":11}
      """#
    let (fast, plain) = try Self.names(json)
    #expect(fast == plain)
    #expect(fast.count == 11)
  }

  @Test func literalsMatchOnlyTheirOwnName() throws {
    let json = #"{"key":1,"\u006bey":2,"keys":3,"ke":4,"transitionToDeepArchive":5,"kEy":6}"#
    var matches: [Bool] = []
    var long: [Bool] = []
    var reader = JSONReader(Array(json.utf8))
    try reader.readMembers { (_, name) throws(JSONReader.Failure) in
      switch name {
      case "key": matches.append(true)
      default: matches.append(false)
      }
      long.append("transitionToDeepArchive" ~= name)
    }
    #expect(matches == [true, true, false, false, false, false])
    #expect(long == [false, false, false, false, true, false])
  }

  @Test func reusedStringsAreTheValuesReadStringReads() throws {
    let values = [
      "image/jpeg", "image/jpeg", "", "", "text/plain; charset=\\\"utf-8\\\"", "image/jpeg", "é",
      "\\u00e9", "é", "a\\/b", "a/b", "a/b",
    ]
    let json = "[" + values.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    var recent = JSONReader.RecentStrings()
    var fast: [String] = []
    var reader = JSONReader(Array(json.utf8))
    try reader.readArray { (reader) throws(JSONReader.Failure) in
      fast.append(try reader.readString(reusing: &recent))
    }
    var plain: [String] = []
    reader = JSONReader(Array(json.utf8))
    try reader.readArray { (reader) throws(JSONReader.Failure) in
      plain.append(try reader.readString())
    }
    #expect(fast == plain)
    #expect(fast.map { Array($0.utf8) } == plain.map { Array($0.utf8) })
  }

  @Test func aReusedStringStillRefusesInvalidUTF8() throws {
    var recent = JSONReader.RecentStrings()
    var bytes = Array(#"["ab","#.utf8)
    bytes += [0x22, 0x61, 0xFF, 0x22, 0x5D]
    var reader = JSONReader(bytes)
    #expect(throws: JSONReader.Failure.self) {
      try reader.readArray { (reader) throws(JSONReader.Failure) in
        _ = try reader.readString(reusing: &recent)
      }
    }
  }

  /// Names of every length up to past the inline capacity, with a byte that needs the plain
  /// reader at every place, both where 16 bytes follow the name and at the very end of the
  /// input: the word-at-a-time reader gives what `readObject` gives, and a name matches only
  /// its own literal.
  @Test func namesOfEveryLengthAndPlaceReadAsReadObjectReadsThem() throws {
    let letters = Array("abcdefghijklmnopqrst")
    for length in 0...19 {
      let plainName = String(letters[0..<length])
      var names = [plainName]
      for place in 0..<length {
        for special in ["é", "\\u0041", "\\\"", "\\n", "\u{7F}"] {
          var characters = letters[0..<length].map(String.init)
          characters[place] = special
          names.append(characters.joined())
        }
      }
      for name in names {
        for json in ["{\"\(name)\":1}", "{\"\(name)\":1,\"padding-padding-padding\":2}"] {
          let (fast, plain) = try Self.names(json)
          #expect(fast == plain, "\(json)")
        }
      }
      // Only the name's own literal matches it.
      for json in ["{\"\(plainName)\":1}", "{\"\(plainName)\":1,\"padding-padding-padding\":2}"] {
        var reader = JSONReader(Array(json.utf8))
        var first = true
        try reader.readMembers { (_, name) throws(JSONReader.Failure) in
          guard first else { return }
          first = false
          #expect("abcdefghijklmnopqrst".prefix(length) == name.string)
          #expect(("abcdefghij" ~= name) == (length == 10))
          #expect(("abcdefghijklmnop" ~= name) == (length == 16))
          #expect(("abcd" ~= name) == (length == 4))
          #expect(("abce" ~= name) == false)
          #expect(("" ~= name) == (length == 0))
        }
      }
    }
  }

  /// Strings with a byte that is not plain ASCII at every place, in the middle and at the end of
  /// the input, read as Foundation's JSON parser reads them; bytes the grammar refuses are
  /// refused.
  @Test func stringsOfEveryPlaceReadAsFoundationReadsThem() throws {
    let specials: [[UInt8]] = [
      Array("é".utf8), Array("\\u00e9".utf8), Array("\\n".utf8), Array("\\\"".utf8), [0x7F],
      Array("😀".utf8), [0x09], [0x1F], [0xFF], [0xC3], [0xED, 0xA0, 0x80],
    ]
    for length in 1...19 {
      for place in 0..<length {
        for special in specials {
          var content = Array(repeating: UInt8(ascii: "s"), count: length)
          content.replaceSubrange(place...place, with: special)
          for tail in [Array("]".utf8), Array(",\"padding-padding-padding\"]".utf8)] {
            let json = Array("[\"".utf8) + content + Array("\"".utf8) + tail
            let expected =
              (try? JSONSerialization.jsonObject(with: Data(json))).flatMap { $0 as? [String] }?
              .first
            var reader = JSONReader(json)
            var read: String?
            var recentRead: String?
            var recent = JSONReader.RecentStrings()
            do {
              try reader.readArray { (reader) throws(JSONReader.Failure) in
                let text = try reader.readString()
                if read == nil { read = text }
              }
              reader = JSONReader(json)
              try reader.readArray { (reader) throws(JSONReader.Failure) in
                let text = try reader.readString(reusing: &recent)
                if recentRead == nil { recentRead = text }
              }
            } catch {
              read = nil
            }
            #expect(read == expected, "\(json)")
            if read != nil { #expect(recentRead == read) }
          }
        }
      }
    }
  }
  /// Integers of every length up to past Int64's, with every digit at every place, negative or
  /// not, followed by each thing that can follow a number: the eight-digit runs read exactly what
  /// `Int64(_:)` reads, and refuse leading zeros and overflow as before.
  @Test func integersOfEveryLengthReadAsInt64Reads() throws {
    var texts: [String] = ["9223372036854775807", "9223372036854775808", "-9223372036854775808"]
    for length in 1...21 {
      for digit in 0...9 {
        for place in [0, length / 2, length - 1] {
          var characters = Array(repeating: Character("7"), count: length)
          characters[place] = Character(String(digit))
          texts.append(String(characters))
          texts.append("-" + String(characters))
        }
      }
      texts.append(String(repeating: "9", count: length))
      texts.append("1" + String(repeating: "0", count: length - 1))
    }
    for text in texts {
      let leadingZero =
        text.drop(while: { $0 == "-" }).first == "0" && text.count > 1
        && text != "-0"
      let expected = leadingZero ? nil : Int64(text)
      for tail in ["", ",1]", "]", " ,"] {
        var reader = JSONReader(Array((text + tail).utf8))
        let read = try? reader.readInt64()
        if leadingZero, read != nil {
          // Too long to be read as digits: read as the number `0`, which ends at the zero (the
          // caller refuses what follows).
          #expect(read == 0 && reader.index == (text.hasPrefix("-") ? 2 : 1), "\(text + tail)")
          continue
        }
        #expect(read == expected, "\(text + tail)")
        if read != nil { #expect(reader.index == text.utf8.count) }
      }
      // Integral forms go the exact way (a leading zero there ends the number early, for the
      // caller to refuse what follows).
      guard !leadingZero else { continue }
      var reader = JSONReader(Array((text + ".0").utf8))
      #expect((try? reader.readInt64()) == expected, "\(text).0")
    }
  }
  /// A table of names finds each name at its position whatever position is expected, in or out
  /// of order, written with escapes or longer than the inline bytes, and finds nothing else.
  @Test func memberNamesFindEachNameWhereverItIsExpected() throws {
    let table = JSONReader.MemberNames([
      "key", "hash", "fsize", "x-qn-meta", "transitionToDeepArchive",
    ])
    let json = #"""
      {"key":0,"hash":1,"fsize":2,"x-qn-meta":3,"transitionToDeepArchive":4,"\u006bey":0,
       "kez":-1,"ke":-1,"keys":-1,"":-1,"fsizes":-1,"transitionToDeepArchivE":-1,"hasH":-1}
      """#
    var reader = JSONReader(Array(json.utf8))
    try reader.readMembers { (reader, name) throws(JSONReader.Failure) in
      let position = try reader.readInt64()
      for expected in -1...6 {
        let found = table.position(of: name, expected: expected)
        #expect(found == (position < 0 ? nil : Int(position)), "\(name.string) \(expected)")
      }
    }
  }
}
