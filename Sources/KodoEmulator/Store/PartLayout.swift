import Synchronization

/// Where the parts of one upload session are written: one file, part N at (N − 1) × stride,
/// the stride being the size of the first part placed. A completion that lists parts 1…N, each
/// in its place, every one but the last exactly the stride long, takes the file as the object
/// (cut to the total, then kept or renamed into place) instead of copying the parts.
///
/// A place is held by one `PartSlot` at a time: a body being written into it, then the part it
/// became, for as long as anything refers to that part. A part that does not fit (larger than
/// the stride, its place held by an earlier copy, the file taken) goes to a spool file of its
/// own, as before, so a re-upload never overwrites bytes a kept part still refers to, and a
/// body cut or refused gives its place back untouched by anyone else.
///
/// The file is in the bucket's `partFolder`: a directory bucket's temporary folder (the same
/// file system as its objects, so the final step is a rename), or the spool of an in-memory
/// bucket. It goes when the session and every part referring to it have gone.
final class PartLayout: Sendable {
  /// No part is placed past this offset (a sparse file past this size is a risk for nothing).
  static let maximumExtent: Int64 = 1 << 40

  private struct State {
    var file: SpoolFile?
    var stride: Int64?
    /// Part number → the slot holding that place.
    var held: [Int: ObjectIdentifier] = [:]
    /// A completion took the file (or is deciding whether to): nothing is placed any more.
    var closed = false
  }

  private let folder: SpoolDirectory
  /// Whether a part is flushed to the disk when it lands (a directory bucket's), so that the
  /// completion's flush has little left to do.
  let flushesParts: Bool
  private let state = Mutex(State())

  init(folder: SpoolDirectory, flushesParts: Bool) {
    self.folder = folder
    self.flushesParts = flushesParts
  }

  /// The place of part `number`, `size` bytes long, held by the slot returned; `nil` when the
  /// part does not fit (it then goes to a spool file of its own).
  func slot(part number: Int, size: Int64) -> PartSlot? {
    state.withLock { state -> PartSlot? in
      guard !state.closed, size > 0, number >= 1, state.held[number] == nil else { return nil }
      let stride = state.stride ?? size
      let offset = Int64(number - 1) * stride
      guard size <= stride, offset <= Self.maximumExtent - size else { return nil }
      if state.file == nil { state.file = try? folder.newFile() }
      guard let file = state.file, !file.isSealed else { return nil }
      state.stride = stride
      let slot = PartSlot(layout: self, number: number, file: file, offset: offset, capacity: size)
      state.held[number] = ObjectIdentifier(slot)
      return slot
    }
  }

  fileprivate func release(_ slot: PartSlot) {
    state.withLock { state in
      if state.held[slot.number] == ObjectIdentifier(slot) { state.held[slot.number] = nil }
    }
  }

  /// The parts a completion lists, joined where they lie: when they are 1…N, every one but the
  /// last exactly the stride long, and every place 1…N is held by the listed part or free (a
  /// part elsewhere, such as a re-upload or a body kept in memory, is then copied into its
  /// place), and no other place is held. The file is closed to new parts from then on; `reopen`
  /// gives it back when the completion fails before the file became the object.
  func join(_ parts: [UploadSessions.Part]) -> JoinedParts? {
    var fills = [(part: UploadSessions.Part, slot: PartSlot)]()
    let taken = state.withLock { state -> (SpoolFile, Int64)? in
      guard !state.closed, let file = state.file, let stride = state.stride, !file.isSealed
      else { return nil }
      var total: Int64 = 0
      for (index, part) in parts.enumerated() {
        let offset = Int64(index) * stride
        guard part.number == index + 1,
          part.size == stride || (index == parts.count - 1 && part.size <= stride)
        else { return nil }
        total += part.size
        if let slot = part.slot, slot.layout === self, slot.number == part.number,
          state.held[part.number] == ObjectIdentifier(slot),
          case .spooled(let source, offset, part.size) = part.data, source === file
        {
          continue
        }
        guard state.held[part.number] == nil, part.size > 0 else { return nil }
        let slot = PartSlot(
          layout: self, number: part.number, file: file, offset: offset, capacity: part.size)
        state.held[part.number] = ObjectIdentifier(slot)
        fills.append((part, slot))
      }
      guard state.held.count == parts.count else { return nil }
      state.closed = true
      return (file, total)
    }
    // Slots made for a join that does not happen go (and give their places back) here, out of
    // the lock.
    guard let (file, total) = taken else { return nil }
    for (part, slot) in fills {
      do throws(StoreFailure) {
        try part.data.forEachChunk { (chunk) throws(StoreFailure) in
          do throws(SpoolDirectory.Failure) {
            try slot.write(chunk)
          } catch {
            throw .io
          }
        }
      } catch {
        reopen()
        return nil
      }
    }
    return JoinedParts(layout: self, file: file, size: total, fills: fills.map(\.slot))
  }

  /// Takes parts again after a join whose completion failed, unless the file became an
  /// object's content meanwhile.
  func reopen() {
    state.withLock { state in
      if let file = state.file, !file.isSealed { state.closed = false }
    }
  }
}

/// The parts of a completion lying in their session's file, from its start: the content the
/// completion stores without copying (`PreparedContent.inPlace`).
struct JoinedParts: Sendable {
  let layout: PartLayout
  let file: SpoolFile
  let size: Int64
  /// The places filled by copies for the join, held until it is done.
  let fills: [PartSlot]

  var content: PreparedContent { .inPlace(file, size: size) }
}

/// One part's place in its session's file (`PartLayout`), held while this lives: written by
/// the connection receiving the part (or by a join filling it), then referred to by the part.
final class PartSlot: Sendable {
  let layout: PartLayout
  let number: Int
  let file: SpoolFile
  let offset: Int64
  /// The part's size, announced by its request.
  let capacity: Int64
  private let written = Mutex<Int64>(0)

  fileprivate init(
    layout: PartLayout, number: Int, file: SpoolFile, offset: Int64, capacity: Int64
  ) {
    self.layout = layout
    self.number = number
    self.file = file
    self.offset = offset
    self.capacity = capacity
  }

  deinit {
    layout.release(self)
  }

  /// Appends `bytes` to the part in its place; more than its announced size is refused. The
  /// write that completes the part flushes it to the disk where the bucket keeps its objects
  /// there, so that the completion's flush finds little left (parts flush in parallel, each on
  /// the thread writing it).
  func write(_ bytes: UnsafeRawBufferPointer) throws(SpoolDirectory.Failure) {
    try written.withLock { (written: inout Int64) throws(SpoolDirectory.Failure) in
      guard Int64(bytes.count) <= capacity - written else { throw .wrongOffset }
      try file.write(bytes, at: offset + written)
      written += Int64(bytes.count)
      if written == capacity, layout.flushesParts { try file.flush() }
    }
  }

  /// The bytes written, as a payload.
  var payload: Payload {
    .spooled(file, offset: offset, count: written.withLock { $0 })
  }
}
