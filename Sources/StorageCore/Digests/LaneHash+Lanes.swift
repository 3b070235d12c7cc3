import CDigestLanes

extension LaneHash {
  /// Adds `chunks[i]` to `hashes[i]` for every i (same counts; any lengths, any mix of kinds),
  /// advancing as many lanes together as the kernels allow.
  public static func update(_ hashes: inout [LaneHash], with chunks: [UnsafeRawBufferPointer]) {
    update(&hashes, with: chunks, width: width)
  }

  /// `update(_:with:)` with kernels no wider than `width`, whatever `kodo_lanes_limit` says: the
  /// tests run every kernel through this, with no global for parallel tests to race on. Returns
  /// the widest kernel used (1 when no lane had a whole block).
  @discardableResult
  static func update(
    _ hashes: inout [LaneHash], with chunks: [UnsafeRawBufferPointer], width: Int
  ) -> Int {
    precondition(hashes.count == chunks.count, "LaneHash.update: one chunk a hash")
    var used = 1
    for kind in [Kind.md5, .sha1] {
      let lanes = hashes.indices.filter { hashes[$0].kind == kind }
      guard !lanes.isEmpty else { continue }
      var group = Lanes(kind, lanes: lanes, of: hashes, width: max(1, width))
      used = max(used, group.update(&hashes, with: lanes.map { chunks[$0] }))
    }
    return used
  }
}

/// The hashes of one kind in a laned update, their states side by side as the kernels take them.
private struct Lanes {
  let kind: LaneHash.Kind
  /// Where each lane's hash is in the caller's array.
  let lanes: [Int]
  let width: Int
  /// The lanes' states, `kind.words` a lane, lane after lane.
  var states: [UInt32]
  /// The widest kernel used so far.
  var used = 1

  init(_ kind: LaneHash.Kind, lanes: [Int], of hashes: [LaneHash], width: Int) {
    self.kind = kind
    self.lanes = lanes
    self.width = width
    states = []
    states.reserveCapacity(kind.words * lanes.count)
    for lane in lanes {
      withUnsafeBytes(of: hashes[lane].state) { words in
        for index in 0..<kind.words {
          states.append(words.load(fromByteOffset: 4 * index, as: UInt32.self))
        }
      }
    }
  }

  /// Adds `chunks[i]` to the hash of lane i.
  mutating func update(_ hashes: inout [LaneHash], with chunks: [UnsafeRawBufferPointer]) -> Int {
    var rests = chunks
    // First the unfinished blocks that the chunks' first bytes finish, together.
    var finished: [LaneHash.Block] = []
    var finishing: [Int] = []
    for (position, lane) in lanes.enumerated() {
      if let block = hashes[lane].fill(&rests[position]) {
        finished.append(block)
        finishing.append(position)
      }
    }
    if !finished.isEmpty {
      finished.withUnsafeBytes { blocks in
        let starts = finishing.indices.map { index in
          blocks.baseAddress.map {
            $0.advanced(by: 64 * index).assumingMemoryBound(to: UInt8.self)
          }
        }
        compress(finishing, starts, blocks: 1)
      }
    }
    // Then the whole blocks, the lanes with the most first: a group of a kernel's width runs as
    // many blocks as its shortest lane has, and the lanes left over regroup.
    var starts = rests.map { $0.baseAddress?.assumingMemoryBound(to: UInt8.self) }
    var remaining = rests.map { $0.count / 64 }
    var order = remaining.indices.filter { remaining[$0] > 0 }
    while !order.isEmpty {
      order.sort { remaining[$0] > remaining[$1] }
      var next: [Int] = []
      for first in stride(from: 0, to: order.count, by: width) {
        let group = Array(order[first..<min(first + width, order.count)])
        let blocks = group.map { remaining[$0] }.min() ?? 0
        compress(group, group.map { starts[$0] }, blocks: blocks)
        for position in group {
          starts[position] = starts[position].map { $0 + 64 * blocks }
          remaining[position] -= blocks
          if remaining[position] > 0 { next.append(position) }
        }
      }
      order = next
    }
    // The states back, and what is left of each chunk kept for the next update.
    for (position, lane) in lanes.enumerated() {
      withUnsafeMutableBytes(of: &hashes[lane].state) { words in
        for index in 0..<kind.words {
          words.storeBytes(
            of: states[kind.words * position + index], toByteOffset: 4 * index, as: UInt32.self)
        }
      }
      let whole = rests[position].count / 64 * 64
      hashes[lane].length &+= UInt64(whole)
      hashes[lane].keep(UnsafeRawBufferPointer(rebasing: rests[position][whole...]))
    }
    return used
  }

  /// Compresses `blocks` blocks from `starts[i]` into the state of lane `group[i]`.
  private mutating func compress(
    _ group: [Int], _ starts: [UnsafePointer<UInt8>?], blocks: Int
  ) {
    guard blocks > 0 else { return }
    let words = kind.words
    var scratch = [UInt32](repeating: 0, count: words * group.count)
    for (index, position) in group.enumerated() {
      for word in 0..<words { scratch[words * index + word] = states[words * position + word] }
    }
    let kind = kind
    let width = width
    let kernel = scratch.withUnsafeMutableBufferPointer { scratch in
      starts.withUnsafeBufferPointer { starts in
        guard let states = scratch.baseAddress, let data = starts.baseAddress else { return 1 }
        return kind.compress(states, data, blocks: blocks, lanes: group.count, width: width)
      }
    }
    used = max(used, kernel)
    for (index, position) in group.enumerated() {
      for word in 0..<words { states[words * position + word] = scratch[words * index + word] }
    }
  }
}
