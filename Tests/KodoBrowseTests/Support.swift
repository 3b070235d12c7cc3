import KodoBrowse
import StorageCore

/// A seeded generator, so the property tests are the same on every run.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

func object(_ key: String, size: Int64 = 100, seconds: Int64 = 1_715_514_660) -> ObjectEntry {
  ObjectEntry(
    key: key, size: size, putTime: Timestamp(unixSeconds: seconds),
    storageClass: StorageClass(name: "standard", serviceName: "0"))
}

/// The list request effects among `effects`.
func listRequests(_ effects: [Effect]) -> [(id: Int, marker: String?)] {
  effects.compactMap {
    if case .listPage(let id, _, _, let marker) = $0 { return (id, marker) }
    return nil
  }
}

extension State {
  mutating func keys(_ text: String) -> [Effect] {
    var effects: [Effect] = []
    for character in text { effects += update(.key(.character(character))) }
    return effects
  }
}
