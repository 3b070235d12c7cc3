import Foundation
public import PropertyBased
public import Testing

// The property checks of `make test`. PropertyBased's `propertyCheck` draws a fresh random seed on
// every run, so a rare input can turn one CI run red and the next green. These draw from a seed
// fixed by where the check is written (its file and line): every run, on every machine, checks the
// same inputs, and a failure seen once is seen again. `KODO_FUZZ_SEED=N` moves every seed, and
// `KODO_FUZZ_SCALE` (see `fuzzCount`) draws more, to explore beyond what `make test` checks.

/// The seed for a check written at `location`, moved by `KODO_FUZZ_SEED`.
func checkSeed(_ location: SourceLocation) -> UInt64 {
  var hash: UInt64 = 0xCBF2_9CE4_8422_2325
  for byte in "\(location.fileID):\(location.line)".utf8 {
    hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
  }
  let moved = ProcessInfo.processInfo.environment["KODO_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0
  return hash ^ moved
}

/// Calls `body` with `count` values drawn from `input`, from a seed fixed by the call's location.
public func seededCheck<InputValue, ResultValue>(
  count: Int = 100,
  input: Generator<ResultValue, some Sequence<InputValue>>,
  perform body: (ResultValue) async throws -> Void,
  isolation: isolated (any Actor)? = #isolation,
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  let seed = checkSeed(sourceLocation)
  for index in 0..<max(0, count) {
    guard !Task.isCancelled else { return }
    var random = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
    let value: ResultValue
    do {
      value = try input.run(using: &random, limit: 10_000)
    } catch {
      Issue.record("the generator gave up: \(error)", sourceLocation: sourceLocation)
      return
    }
    do {
      try await body(value)
    } catch {
      Issue.record(
        "case \(index) of seed \(seed) threw \(error)", sourceLocation: sourceLocation)
    }
  }
}

/// `seededCheck` over two generators.
public func seededCheck<InA, InB, OutA, OutB>(
  count: Int = 100,
  input first: Generator<OutA, some Sequence<InA>>,
  _ second: Generator<OutB, some Sequence<InB>>,
  perform body: (OutA, OutB) async throws -> Void,
  isolation: isolated (any Actor)? = #isolation,
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  await seededCheck(
    count: count, input: zip(first, second), perform: { try await body($0.0, $0.1) },
    isolation: isolation, sourceLocation: sourceLocation)
}

/// `seededCheck` over three generators.
public func seededCheck<InA, InB, InC, OutA, OutB, OutC>(
  count: Int = 100,
  input first: Generator<OutA, some Sequence<InA>>,
  _ second: Generator<OutB, some Sequence<InB>>,
  _ third: Generator<OutC, some Sequence<InC>>,
  perform body: (OutA, OutB, OutC) async throws -> Void,
  isolation: isolated (any Actor)? = #isolation,
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  await seededCheck(
    count: count, input: zip(first, second, third),
    perform: { try await body($0.0, $0.1, $0.2) }, isolation: isolation,
    sourceLocation: sourceLocation)
}
