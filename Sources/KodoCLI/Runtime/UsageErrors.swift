import ArgumentParser
import StorageCore

/// Command-line errors (exit 64, or 0 for `--help` and `--version`), worded to say what to do:
/// the nearest command for an unknown one, `--` for a key that looks like an option, and a bad
/// duration named as one.
enum UsageErrors {
  static func report(
    _ error: any Error, command: (any ParsableCommand.Type)?, arguments: [String], json: Bool
  ) -> Int32 {
    let type = command ?? Kodo.self
    var status = Kodo.exitCode(for: error).rawValue
    var lines = message(for: error, command: type)
    if status == 0 {
      // --help, --version, completions: the text is the output (none for no completions).
      if lines.allSatisfy(\.isEmpty) { return 0 }
      let text = lines.map { DisplayText(escaping: $0).text }.joined(separator: "\n") + "\n"
      FileDescriptorWriter.writeAll(Array(text.utf8), to: Runtime.current.standardOutput)
      return 0
    }
    guard !lines.isEmpty else { return status }
    var first = lines.removeFirst()
    if first.hasPrefix(Kodo._errorPrefix) { first.removeFirst(Kodo._errorPrefix.count) }
    if let better = improved(first, arguments: arguments) {
      first = better.message
      status = better.status
    }
    let message = DisplayText(escaping: first)
    Diagnostics.error(message)
    for line in lines where !line.isEmpty {
      FileDescriptorWriter.writeAll(
        Array((DisplayText(escaping: line).text + "\n").utf8), to: Runtime.current.standardError)
    }
    if json { ErrorReporting.writeJSON(exit: status, message: message, code: nil, requestID: nil) }
    return status
  }

  /// The lines ArgumentParser would print for `error`, except that a `ValidationError` a
  /// command threw after parsing is its message alone, with the usage line and help hint of the
  /// whole command (`Usage: kodo stat …`, `See 'kodo stat --help'`), as for parsing errors.
  static func message(for error: any Error, command: any ParsableCommand.Type) -> [String] {
    if let validation = error as? ValidationError, let path = commandPath(to: command) {
      let usage = Kodo.usageString(for: command)
      return [
        validation.message, "Usage: " + usage,
        "  See '\(path.joined(separator: " ")) --help' for more information.",
      ]
    }
    return command.fullMessage(for: error).split(separator: "\n", omittingEmptySubsequences: false)
      .map(String.init)
  }

  /// The names from `kodo` down to `command` (`["kodo", "token", "qbox"]`).
  static func commandPath(
    to command: any ParsableCommand.Type, from root: any ParsableCommand.Type = Kodo.self
  ) -> [String]? {
    if ObjectIdentifier(command) == ObjectIdentifier(root) { return [root._commandName] }
    for subcommand in root.configuration.subcommands {
      if let path = commandPath(to: command, from: subcommand) {
        return [root._commandName] + path
      }
    }
    return nil
  }

  /// A better first line for some of ArgumentParser's messages, and its exit status.
  static func improved(_ message: String, arguments: [String]) -> (message: String, status: Int32)?
  {
    // Another tool's verb (`kodo cp -r …`), whatever ArgumentParser tripped over first.
    if let word = firstWord(arguments), !commandNames.contains(word),
      let advice = ForeignVerbs.advice(word, arguments: arguments)
    {
      return (advice, 64)
    }
    if message.hasPrefix("Unknown option '"), !message.contains("Did you mean") {
      return (message + "; " + unknownOptionHint(message, arguments: arguments), 64)
    }
    if message.hasPrefix("Missing value for '--expires"),
      let index = arguments.firstIndex(of: "--expires"), index + 1 < arguments.count,
      arguments[index + 1].hasPrefix("-")
    {
      return (
        "invalid duration '\(arguments[index + 1])' for --expires: give a positive number of seconds, or 90s, 15m, 2h, 7d",
        65
      )
    }
    // `--range -20`: a value that starts with '-' was taken for an option.
    if message.hasPrefix("Missing value for '--"),
      let name = message.dropFirst("Missing value for '".count).split(
        whereSeparator: { $0 == " " || $0 == "'" }
      ).first,
      let index = arguments.firstIndex(of: String(name)), index + 1 < arguments.count,
      arguments[index + 1].hasPrefix("-"), arguments[index + 1] != "--"
    {
      return (
        message
          + "; a value that starts with '-' is taken for an option: write \(name)=\(arguments[index + 1])",
        64
      )
    }
    // "Unexpected argument 'lss'" for one word, "2 unexpected arguments: …" for more.
    if message.lowercased().contains("unexpected argument"), let word = firstWord(arguments),
      !commandNames.contains(word)
    {
      return (ForeignVerbs.advice(word, arguments: arguments) ?? unknownCommand(word), 64)
    }
    return nil
  }

  /// `unknown command 'WORD'`, with the nearest command when one is near.
  static func unknownCommand(_ word: String) -> String {
    var text = "unknown command '\(word)'"
    if let nearest = nearest(to: word, in: commandNames) {
      text += "; did you mean '\(nearest)'?"
    }
    return text + " (kodo --help lists the commands)"
  }

  /// What to say after `Unknown option '-X'`: the option that differs only in case, the
  /// version flag, `--` for a key that starts with '-' (commands that take keys), or where the
  /// options are listed.
  static func unknownOptionHint(_ message: String, arguments: [String]) -> String {
    let option = String(
      message.dropFirst("Unknown option '".count).prefix { $0 != "'" })
    let command = firstWord(arguments).flatMap { word in
      Kodo.configuration.subcommands.first {
        $0._commandName == word || $0.configuration.aliases.contains(word)
      }
    }
    if option == "-V" { return "kodo --version prints the version" }
    if let command, option.count == 2, option.hasPrefix("-") {
      let lower = option.lowercased()
      if lower != option, Kodo.helpMessage(for: command).contains("  \(lower), ") {
        return "did you mean '\(lower)'?"
      }
    }
    let name = command.map { "kodo " + $0._commandName } ?? "kodo"
    let keyCommands = ["stat", "cat", "get", "url"]
    if let command, keyCommands.contains(command._commandName), !option.hasPrefix("--") {
      return
        "a key that starts with '-' goes after '--', as in: kodo \(command._commandName) BUCKET -- \(option)"
    }
    return "\(name) --help lists the options"
  }

  /// The names and aliases of the subcommands.
  static var commandNames: [String] {
    Kodo.configuration.subcommands.flatMap { subcommand in
      [subcommand._commandName] + subcommand.configuration.aliases
    }
  }

  /// The first argument that is not an option or an option's value.
  private static func firstWord(_ arguments: [String]) -> String? {
    let withValues: Set<String> = ["--config", "--profile", "--retries", "--timeout"]
    var skipNext = false
    for argument in arguments {
      if skipNext {
        skipNext = false
        continue
      }
      if withValues.contains(argument) {
        skipNext = true
        continue
      }
      if argument.hasPrefix("-") { continue }
      return argument
    }
    return nil
  }

  /// The candidate closest to `word` (at most two edits, or a prefix), if any.
  static func nearest(to word: String, in candidates: [String]) -> String? {
    // Two edits turn any two-letter word into `ls`: short words get one.
    let allowed = word.count <= 3 ? 1 : 2
    let scored = candidates.map { ($0, distance(word, $0)) }.filter {
      $0.1 <= allowed || $0.0.hasPrefix(word)
    }
    return scored.min { $0.1 < $1.1 }?.0
  }

  /// Levenshtein distance over characters.
  static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    var previous = Array(0...b.count)
    for (i, left) in a.enumerated() {
      var current = [i + 1] + Array(repeating: 0, count: b.count)
      for (j, right) in b.enumerated() {
        current[j + 1] = min(
          previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1))
      }
      previous = current
    }
    return previous[b.count]
  }
}
