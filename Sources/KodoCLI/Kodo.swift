public import ArgumentParser
import StorageCore

/// The `kodo` command: the root of every subcommand.
///
/// `run(arguments:runtime:)` is the one entry point: the executable calls it with the process's
/// arguments and runtime, tests with their own. Every failure, from parsing to the service, ends
/// in `ErrorReporting`: one `kodo: error: …` line and the contract's exit code.
public struct Kodo: AsyncParsableCommand, Sendable {
  public static let configuration = CommandConfiguration(
    commandName: "kodo",
    abstract: "Browse Qiniu Kodo and Aliyun OSS object storage from the terminal and from scripts.",
    discussion: """
      The service is Qiniu Kodo unless a scheme (oss://BUCKET), --provider, KODO_PROVIDER \
      (kodo or oss) or the config file's "provider" says Aliyun OSS. Credentials come from \
      QINIU_ACCESS_KEY and QINIU_SECRET_KEY (Kodo) or OSS_ACCESS_KEY_ID, OSS_ACCESS_KEY_SECRET \
      and OSS_SESSION_TOKEN (OSS, with OSS_REGION and OSS_ENDPOINT), or from the config file: \
      --config, KODO_CONFIG, $XDG_CONFIG_HOME/kodo/config.json or ~/.config/kodo/config.json. \
      KODO_ENDPOINT points every Kodo service at one base URL (kodo-emulator prints it). \
      Exit codes: 0 ok, 64 usage, 65 bad input, 66 not found, 69 unreachable, 73 already exists, 74 local file \
      error, 75 retries exhausted, 76 bad answer, 77 permission, 78 configuration, \
      130 interrupted (SIGINT), 143 terminated (SIGTERM), 1 any other failure.

      Examples:
        kodo buckets
        kodo ls photos/2024/
        kodo ls -r --json logs | jq .key
        kodo stat photos 2024/beach.jpg
        kodo url --expires 2h photos 2024/beach.jpg
        kodo rm -r --dry-run photos/2023/
      """,
    version: "kodo " + KodoVersion.current,
    subcommands: [
      Buckets.self, List.self, Stat.self, URLCommand.self, Cat.self, Get.self, Domains.self,
      Token.self, DiskUsage.self, Find.self, Browse.self, Put.self, Remove.self, Move.self,
      Copy.self, Sync.self, SetCommand.self, Restore.self,
    ]
  )

  @OptionGroup var global: GlobalOptions

  /// The command before parsing (ArgumentParser fills it in).
  public init() {}

  /// Usage errors (64) start with the same `kodo: error: ` as every other error; the usage
  /// summary follows on the next lines.
  public static var _errorPrefix: String { "kodo: error: " }

  /// Parses `arguments` (without the program name) and runs the command they name in `runtime`.
  ///
  /// - Returns: the exit status.
  public static func run(arguments: [String], runtime: Runtime) async -> Int32 {
    await Runtime.$current.withValue(runtime) {
      if let script = CompletionScripts.script(for: arguments) {
        FileDescriptorWriter.writeAll(Array(script.utf8), to: runtime.standardOutput)
        return 0
      }
      var parsed: (any ParsableCommand)?
      do {
        var command = try await asyncParseAsRoot(arguments)
        parsed = command
        if var asynchronous = command as? any AsyncParsableCommand {
          try await asynchronous.run()
        } else {
          try command.run()
        }
        return 0
      } catch {
        return ErrorReporting.report(
          error, command: parsed.map { type(of: $0) }, arguments: arguments)
      }
    }
  }
}
