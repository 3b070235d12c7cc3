import KodoCLI

/// The `kodo` executable: everything it does lives in the `KodoCLI` library.
@main
enum KodoMain {
  static func main() async {
    await Kodo.main()
  }
}
