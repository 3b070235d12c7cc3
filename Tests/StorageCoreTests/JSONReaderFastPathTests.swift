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
}
