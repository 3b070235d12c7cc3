import Foundation
import KodoCLI

/// The `kodo` executable: everything it does lives in the `KodoCLI` library.
@main
enum KodoMain {
  static func main() async {
    let status = await Kodo.run(
      arguments: Array(CommandLine.arguments.dropFirst()), runtime: .process)
    exit(status)
  }
}
