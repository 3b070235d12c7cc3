import ArgumentParser
import StorageCore

/// The one place where completion candidates (keys, bucket names, profile names, local file
/// names: text kodo does not control) are written for a shell, so that each reaches it as an
/// inert literal: nothing in a candidate is ever expanded, run, or split.
///
/// - bash: the generated script hands the answer to `compgen -W`, which splits it at newlines
///   and then expands each word (`$(…)`, backticks, `~`, braces, `$((…))`) and honours quotes.
///   Every candidate is therefore single-quoted, a `'` inside written `'\''`: expansion then
///   gives back exactly the text.
/// - zsh: the script hands each line to `_describe`, which reads `NAME:DESCRIPTION`; a `:` and
///   a `\` in the name are escaped with a `\`.
/// - fish: each line is a candidate as it is (a tab would start a description; candidates
///   never hold one).
/// - no shell (the protocol run by hand, or an older script): one candidate per line, as it is.
enum CompletionCandidates {
  /// The shell that asked, from `SAP_SHELL` (set by the generated scripts).
  enum Shell: String {
    case bash, zsh, fish
  }

  /// `candidates` written for `shell`, one line each.
  static func encode(_ candidates: [String], for shell: Shell?) -> [String] {
    switch shell {
    case .bash: candidates.map(bashWord)
    case .zsh: candidates.map(zshName)
    case .fish, nil: candidates
    }
  }

  /// The words of the command line as the shell will pass them to kodo: bash and zsh hand
  /// completions the words as typed, with the quoting their own completions inserted
  /// (`summer\ trip/`); fish (3.x) hands them unquoted.
  static func typed(_ words: [String], prefix: String, for shell: Shell?) -> (
    words: [String], prefix: String
  ) {
    guard shell == .bash || shell == .zsh else { return (words, prefix) }
    return (words.map(dequoted), dequoted(prefix))
  }

  /// `word` without the shell's quoting: `\x` is `x`, `'…'` is literal, `"…"` is literal but for
  /// `\` before `"`, `\`, `$` and a backquote.
  static func dequoted(_ word: String) -> String {
    var text = ""
    var quote: Character?
    var escaped = false
    for character in word {
      if escaped {
        if quote == "\"", !"\"\\$`".contains(character) { text.append("\\") }
        text.append(character)
        escaped = false
        continue
      }
      switch (quote, character) {
      case ("'", "'"), ("\"", "\""): quote = nil
      case ("'", _): text.append(character)
      case (_, "\\"): escaped = true
      case (nil, "'"), (nil, "\""): quote = character
      default: text.append(character)
      }
    }
    return text
  }

  /// `text` as one single-quoted bash word.
  static func bashWord(_ text: String) -> String {
    "'" + text.replacing("'", with: #"'\''"#) + "'"
  }

  /// `text` as a name for zsh's `_describe`.
  static func zshName(_ text: String) -> String {
    text.replacing(#"\"#, with: #"\\"#).replacing(":", with: #"\:"#)
  }
}

/// `kodo --generate-completion-script SHELL`: ArgumentParser's script, with kodo's additions.
enum CompletionScripts {
  /// The script `arguments` ask for, or `nil` when they ask for something else.
  static func script(for arguments: [String]) -> String? {
    let option = "--generate-completion-script"
    let name: String
    if arguments.count == 2, arguments[0] == option {
      name = arguments[1]
    } else if arguments.count == 1, arguments[0].hasPrefix(option + "=") {
      name = String(arguments[0].dropFirst(option.count + 1))
    } else if arguments == [option] {
      // No shell named: the login shell's, as ArgumentParser detects it.
      name = String(KeySegments.lastSegment(of: Runtime.current.environment["SHELL"] ?? ""))
    } else {
      return nil
    }
    guard let shell = CompletionShell(rawValue: name) else { return nil }
    var script = Kodo.completionScript(for: shell)
    if !script.hasSuffix("\n") { script += "\n" }
    if shell == .bash { script += bashFolderSuffix }
    if shell == .zsh { script = script.replacing(zshComplete, with: zshFolderComplete) }
    return script
  }

  /// ArgumentParser's zsh function that offers the candidates (one `_describe`, after which
  /// zsh puts a space after a unique completion)…
  static let zshComplete = #"""
    __kodo_complete() {
        local -ar non_empty_completions=("${@:#(|:*)}")
        local -ar empty_completions=("${(M)@:#(|:*)}")
        _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
    }
    """#

  /// …and kodo's: a folder (a candidate ending in `/`) takes no space, so that the next Tab
  /// goes one level down.
  static let zshFolderComplete = #"""
    __kodo_complete() {
        local -ar non_empty_completions=("${@:#(|:*)}")
        local -ar empty_completions=("${(M)@:#(|:*)}")
        local -ar folders=("${(M)non_empty_completions[@]:#*/}")
        local -ar others=("${non_empty_completions[@]:#*/}")
        _describe -V '' others -- empty_completions -P $'\'\''
        _describe -V '' folders -S ''
    }
    """#

  /// bash puts a space after a unique completion; a folder (a candidate ending in `/`) takes
  /// none, so that the next Tab goes one level down. The generated function runs inside this
  /// one, which replaces it as the `kodo` completion.
  static let bashFolderSuffix = """
    # kodo: a completed folder (a candidate ending in /) takes no space after it.
    _kodo_folders() {
        _kodo "$@"
        local -r status=$?
        if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]]; then
            compopt -o nospace
        fi
        return "${status}"
    }
    complete -o filenames -F _kodo_folders kodo

    """
}
