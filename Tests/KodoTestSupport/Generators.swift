import Foundation
public import PropertyBased

// Generators shared by the property tests of every test target: arbitrary keys and text,
// structured inputs drawn from the checker's random numbers, and the fuzzing scale.

/// Any Unicode scalar except surrogates (which are not scalars), weighted towards the awkward ones.
public let anyScalar = Gen<UInt32>.value(in: 0...0x10FFFF).map { value -> Character in
  let scalar = Unicode.Scalar(value) ?? Unicode.Scalar(0xFFFD as UInt32)!
  return Character(scalar)
}
public let awkwardASCII = Gen<Character?>.element(
  of: Array("/:%?#&=+ ~*'()[]{}|\\\"<>^`@;,$!\t\n\0") as [Character]
)
.map { $0! }
public let keyCharacter = Gen.oneOf(anyScalar, awkwardASCII, Gen.ascii)
public let anyKey = keyCharacter.string(of: 0...40)

/// Characters from `alphabet`, mixed with arbitrary key characters.
public func text(
  from alphabet: String, length: ClosedRange<Int> = 0...24
) -> Generator<String, some SendableSequenceType> {
  let special = Gen<Character?>.element(of: Array(alphabet)).map { $0 ?? " " }
  return Gen.oneOf(special, special, special, keyCharacter).string(of: length)
}

/// `text` padded with `=` to a multiple of four characters, as the encoder writes it.
public func padded(_ text: String) -> String {
  if text.hasSuffix("=") { return text }
  return text + String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
}

/// A generator of structured fuzz inputs drawn from the property checker's random numbers, so a
/// failure's seed reproduces the input.
public func fuzzInput<T: Sendable>(
  _ make: @escaping @Sendable (inout any SeededRandomNumberGenerator) -> T
) -> Generator<T, Shrink.None<T>> {
  Generator(run: { rng in make(&rng) })
}

/// `iterations` scaled by `KODO_FUZZ_SCALE` (default 1): `KODO_FUZZ_SCALE=100 swift test
/// --filter Fuzz` runs a longer fuzzing session than `make test`.
public func fuzzCount(_ iterations: Int) -> Int {
  let scale = ProcessInfo.processInfo.environment["KODO_FUZZ_SCALE"].flatMap { Int($0) } ?? 1
  return iterations * max(1, scale)
}

extension RandomNumberGenerator {
  /// `true` with probability `percent`/100.
  public mutating func chance(_ percent: Int) -> Bool {
    Int.random(in: 0..<100, using: &self) < percent
  }

  public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }

  public mutating func pick<T>(_ choices: [T]) -> T {
    choices[Int.random(in: 0..<choices.count, using: &self)]
  }

  /// Any Int64, weighted towards the edges and small values.
  public mutating func int64() -> Int64 {
    switch int(0...5) {
    case 0: pick([0, 1, -1, .max, .min, .max - 1, .min + 1, 9_007_199_254_740_993])
    case 1: Int64.random(in: -1000...1000, using: &self)
    default: Int64.random(in: .min ... .max, using: &self)
    }
  }
}

/// A small seeded generator (SplitMix64), for tests that draw many values from one seed: the same
/// seed gives the same values on every run and platform.
public struct SplitMix64: SeededRandomNumberGenerator {
  public var state: UInt64

  public init(seed: UInt64) { state = seed }

  public init() { state = UInt64.random(in: .min ... .max) }

  public var currentSeed: UInt64 { state }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
