import Foundation
import KodoTestSupport
import Testing

/// `docs/cli.md` is the project's copy of the contract that scripts rely on; it must say what the
/// shared contract says.
@Suite("The contract's copy")
struct ContractCopyTests {
  @Test func docsCLIMatchesTheSharedContract() throws {
    let copy = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/cli.md"), encoding: .utf8)
    #expect(copy.contains("# The `kodo` contract"))
    let shared = Fixtures.repositoryRoot.deletingLastPathComponent()
      .appendingPathComponent("shared/docs/cli-contract.md")
    if let sharedText = try? String(contentsOf: shared, encoding: .utf8) {
      #expect(
        copy == sharedText, "docs/cli.md differs from ../shared/docs/cli-contract.md; copy it again"
      )
    }
  }
}
