import KodoBrowse
import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

/// Any sequence of marks, filters, moves, deletes, renames and page arrivals (writes answered
/// late, between pages, some refused) keeps the browser consistent: the rows are exactly the
/// loaded entries the filter passes, each once, in order; every mark names a loaded entry; the
/// cursor is on the selected row; and once everything is answered and loaded, the folder holds
/// what the service holds.
@Suite("Browser writes keep the state consistent")
struct WritesPropertyTests {
  static let parts = ["a", "B", "é", "e\u{301}", "中", "s/", "0", "x"]

  /// A folder level as a service holds it: objects (no `/`) and folders (`NAME/`).
  struct Service {
    var entries: Set<ExactKey>

    func page(after last: String?, count: Int) -> ListPage {
      let sorted = byBytes(entries.map(\.text)).filter { key in
        last.map { $0.utf8.lexicographicallyPrecedes(key.utf8) } ?? true
      }
      let taken = sorted.prefix(count)
      return ListPage(
        commonPrefixes: taken.filter { $0.hasSuffix("/") },
        items: taken.filter { !$0.hasSuffix("/") }.map { object($0, size: Int64($0.utf8.count)) },
        nextMarker: taken.count < sorted.count ? "more" : nil)
    }
  }

  @Test func anySequenceKeepsRowsMarksAndCursorConsistent() async {
    let input = Gen.uint8().array(of: 0...24)
    let script = Gen.uint8().array(of: 10...160)
    // What the cases did, so that the property cannot hold by doing nothing.
    var (deleted, renamed, settledComplete) = (0, 0, 0)
    await seededCheck(count: 150, input: input, script) { names, operations in
      var service = Service(
        entries: Set(
          names.map { byte in
            let first = Self.parts[Int(byte) % Self.parts.count]
            let second = Self.parts[Int(byte / 8) % Self.parts.count]
            return ExactKey(first.hasSuffix("/") ? first : first + second)
          }))
      var state = State(
        location: .folder(bucket: "b", prefix: ""), size: Size(width: 100, height: 10))
      var request = listRequests(state.update(.start)).first?.id
      var delivered: String?
      var answers: [Message] = []
      var step = 0
      func run(_ effects: [Effect]) {
        for effect in effects {
          switch effect {
          case .listPage(let id, _, _, _): request = id
          case .delete(let id, _, let objects, let folders):
            var report = DeleteReport()
            // Every fourth delete fails for its first object.
            let failing = step % 4 == 0 ? objects.first : nil
            for key in objects where key != failing {
              service.entries.remove(ExactKey(key))
              report.objects.append(key)
              report.deleted += 1
            }
            if failing != nil {
              report.failed = 1
              report.firstFailure = "refused"
            }
            for folder in folders {
              service.entries.remove(ExactKey(folder))
              report.folders.append(folder)
            }
            answers.append(.deleteFinished(id: id, report))
          case .move(let id, _, let from, let to, let replace):
            let rest = to
            let landing = rest.firstIndex(of: "/").map { String(rest[...$0]) } ?? rest
            if step % 5 == 0 {
              answers.append(.moveFinished(id: id, .failed(Failure("refused"))))
            } else if !replace && service.entries.contains(ExactKey(to)) {
              answers.append(.moveFinished(id: id, .exists))
            } else {
              service.entries.remove(ExactKey(from))
              service.entries.insert(ExactKey(landing))
              answers.append(.moveFinished(id: id, .moved))
            }
          default: break
          }
        }
      }
      for operation in operations {
        step += 1
        let choice = Int(operation % 16)
        let pick = Int(operation / 16)
        switch choice {
        case 0, 1: run(state.keys(" "))
        case 2: run(state.keys("*"))
        case 3: run(state.update(.key(pick % 2 == 0 ? .down : .up)))
        case 4:
          guard state.mode == .normal else { break }
          run(state.keys("/" + Self.parts[pick % Self.parts.count]))
          run(state.update(.key(.enter)))
        case 5: run(state.update(.key(.escape)))
        case 6, 7: run(state.keys("d"))
        case 8: run(state.keys(pick % 3 == 0 ? "n" : "y"))
        case 9, 10:
          run(state.keys("r"))
          guard case .rename = state.mode else { break }
          run(state.update(.key(.control("u"))))
          let name = Self.parts[pick % Self.parts.count] + Self.parts[(pick / 3) % Self.parts.count]
          run(state.keys(name.hasSuffix("/") ? name + "n" : name))
          run(state.update(.key(.enter)))
        case 11, 12:
          guard !answers.isEmpty else { break }
          // In the order the writes were made (the service made them in that order).
          let answer = answers.removeFirst()
          switch answer {
          case .deleteFinished(_, let report)
          where !report.objects.isEmpty || !report.folders.isEmpty:
            deleted += 1
          case .moveFinished(_, .moved): renamed += 1
          default: break
          }
          run(state.update(answer))
        default:
          guard let id = request else { break }
          let page = service.page(after: delivered, count: 1 + pick % 4)
          let keys = page.commonPrefixes + page.items.map(\.key)
          if let last = byBytes(keys).last { delivered = last }
          request = nil
          run(state.update(.pageLoaded(id: id, .success(page))))
        }
        let settled = answers.isEmpty && request == nil
        if settled && state.folder?.complete == true { settledComplete += 1 }
        Self.check(state, service: service, settled: settled)
      }
    }
    #expect(
      deleted > 100 && renamed > 100 && settledComplete > 1000,
      "\((deleted, renamed, settledComplete))")
  }

  static func check(_ state: State, service: Service, settled: Bool) {
    let folder = state.folder
    let objects = (0..<(folder?.objectCount ?? 0)).compactMap { folder?.object($0)?.key }
    let loaded = (folder?.folders ?? []) + objects
    #expect(
      Set(loaded.map(ExactKey.init)).count == loaded.count, "an entry loaded twice: \(loaded)")
    let needle = state.filter.lowercased()
    let passes = { (key: String) in needle.isEmpty || key.lowercased().contains(needle) }
    let expected =
      byBytes(folder?.folders ?? []).filter(passes) + byBytes(objects).filter(passes)
    let shown = state.rows.indices.map { state.rows[$0].id }
    #expect(shown == expected, "rows \(shown), expected \(expected)")
    #expect(state.marks.isSubset(of: Set(loaded.map(ExactKey.init))))
    if shown.isEmpty {
      #expect(state.cursor == 0)
    } else {
      #expect(state.rows.indices.contains(state.cursor))
      #expect(state.selectedID.map { ExactKey($0) } == ExactKey(shown[state.cursor]))
      #expect(state.top <= state.cursor && state.cursor < state.top + state.listHeight)
    }
    if settled && folder?.complete == true {
      #expect(Set(loaded.map(ExactKey.init)) == service.entries, "cache \(loaded) ≠ service")
    }
  }
}
