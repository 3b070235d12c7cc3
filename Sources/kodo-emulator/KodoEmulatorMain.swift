import KodoEmulatorCLI

/// The `kodo-emulator` executable: everything it does lives in the `KodoEmulatorCLI` library.
@main
enum KodoEmulatorMain {
  static func main() async {
    await EmulatorMain.main()
  }
}
