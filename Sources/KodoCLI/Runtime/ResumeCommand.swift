import StorageCore

/// The command line that continues a listing (`ls`, `find`) from a marker, quoted for a shell,
/// the same for both providers: `resume with: [VARIABLE=… ] kodo COMMAND ARGUMENTS… --marker M`.
///
/// What the environment chose is carried so that the command works where it is pasted:
/// `KODO_CONFIG` and `KODO_PROFILE` as their flags, the provider (`KODO_PROVIDER`) as
/// `--provider`, and the endpoints, which have no flags (`KODO_ENDPOINT`, `OSS_ENDPOINT`,
/// `OSS_REGION`), as assignments before `kodo`. Credentials never are.
struct ResumeCommand {
  /// The command without `--marker`.
  let text: DisplayText

  /// `kodo SUBCOMMAND` with the configuration choices of `context`, then `arguments` (which
  /// hold `--json` where the command wants it).
  init(_ subcommand: String, _ arguments: [String], context: Context) {
    func nonEmpty(_ value: String?) -> String? { value?.isEmpty == false ? value : nil }
    let environment = context.environment
    var parts = ["kodo", subcommand]
    if let config = nonEmpty(context.options.config) ?? nonEmpty(environment["KODO_CONFIG"]) {
      parts += ["--config", config]
    }
    if let profile = nonEmpty(context.options.profile) ?? nonEmpty(environment["KODO_PROFILE"]) {
      parts += ["--profile", profile]
    }
    if let provider = nonEmpty(context.options.provider)
      ?? nonEmpty(environment["KODO_PROVIDER"])
    {
      parts += ["--provider", provider]
    }
    parts += arguments
    var line = DisplayText.joined(parts.map(ShellQuote.quote), separator: " ")
    for name in ["OSS_REGION", "OSS_ENDPOINT", "KODO_ENDPOINT"] {
      guard let value = nonEmpty(environment[name]) else { continue }
      // The value alone is quoted: a quoted assignment is not an assignment.
      line = "\(name)=" + ShellQuote.quote(RequestEvent.redactedURL(value)) + " " + line
    }
    text = line
  }

  /// `resume with: COMMAND --marker MARKER`.
  func note(marker: String) -> DisplayText {
    "resume with: " + text + " --marker " + ShellQuote.quote(marker)
  }
}
