import ArgumentParser
import Foundation
import StorageCore

/// Shell completion that asks the service: profile names from the config file, bucket names,
/// and keys under the prefix typed so far.
///
/// The scripts of `kodo --generate-completion-script` run
/// `kodo ---completion SUBCOMMAND -- ARGUMENT INDEX CURSOR WORD…` (ArgumentParser's protocol);
/// the functions here receive the command line's words, the index of the word being completed
/// and its text up to the cursor. They read the configuration that the words already typed name
/// (`--config`, `--profile`, `--provider`, a scheme), list at most one page, give up after
/// `Runtime.completionDeadline` (2 s), and answer nothing on any failure: completing never
/// prints an error, never retries and never prompts.
enum ShellCompletion {
  /// The most entries one completion lists.
  static let pageSize = 200

  /// `--profile NAME`: the config file's profiles.
  static var profile: CompletionKind {
    .custom { words, index, prefix in
      let (words, prefix) = typed(words, prefix)
      return deliver(profiles(words: words, index: index, prefix: prefix))
    }
  }

  /// `BUCKET`: the account's buckets.
  static var bucket: CompletionKind {
    .custom { words, index, prefix in
      let (words, prefix) = typed(words, prefix)
      return await complete(words: words, index: index) { context, _ in
        try await buckets(context, prefix: prefix, suffix: "")
      }
    }
  }

  /// `BUCKET[/PREFIX]`: buckets (each with its `/`), then folders and keys one level down.
  static var bucketPath: CompletionKind {
    .custom { words, index, prefix in
      let (words, prefix) = typed(words, prefix)
      return await complete(words: words, index: index) { context, _ in
        try await bucketPaths(context, prefix: prefix)
      }
    }
  }

  /// `[BUCKET] KEY…` (stat, cat, get, url): a bucket first, then keys in it; for `get -r`,
  /// `BUCKET/PREFIX` then a local directory.
  static var objectArguments: CompletionKind {
    .custom { words, index, prefix in
      let (words, prefix) = typed(words, prefix)
      return await complete(words: words, index: index) { context, command in
        try await objectArguments(context, command: command, prefix: prefix)
      }
    }
  }

  /// The words and the prefix as the asking shell meant them.
  private static func typed(_ words: [String], _ prefix: String) -> ([String], String) {
    CompletionCandidates.typed(words, prefix: prefix, for: shell)
  }

  /// The shell that asked, from `SAP_SHELL` (set by the generated scripts).
  private static var shell: CompletionCandidates.Shell? {
    CompletionCandidates.Shell(rawValue: Runtime.current.environment["SAP_SHELL"] ?? "")
  }

  // MARK: - What each completes

  static func profiles(words: [String], index: Int, prefix: String) -> [String] {
    guard
      let path = Configuration.filePath(
        configFlag: typedConfig(words: words, index: index),
        environment: Runtime.current.environment),
      let file = try? ConfigFile.read(path: path)
    else { return [] }
    return file.profiles.keys.sorted().filter { $0.hasPrefix(prefix) }
  }

  private static func buckets(_ context: Context, prefix: String, suffix: String) async throws
    -> [String]
  {
    let (scheme, name) = splitScheme(prefix)
    let provider = try context.provider()
    return try await provider.buckets().map(\.name).filter { $0.hasPrefix(name) }.prefix(pageSize)
      .map { scheme + $0 + suffix }
  }

  private static func bucketPaths(_ context: Context, prefix: String) async throws -> [String] {
    let (scheme, path) = splitScheme(prefix)
    guard let (head, tail) = KeySegments.splitAtFirstSlash(path) else {
      return try await buckets(context, prefix: prefix, suffix: "/")
    }
    let bucket = String(head)
    let keyPrefix = String(tail)
    return try await keys(context, bucket: scheme + bucket, prefix: keyPrefix).map {
      scheme + bucket + "/" + $0
    }
  }

  private static func objectArguments(
    _ context: Context, command: any KodoCommand, prefix: String
  ) async throws -> [String] {
    let typed: [String]
    switch command {
    case let get as Get:
      if get.recursive {
        switch get.object.arguments.count {
        case 0: return try await bucketPaths(context, prefix: prefix)
        case 1: return directories(prefix: prefix)
        default: return []
        }
      }
      typed = get.object.arguments
    case let sync as Sync:
      // A local directory or a bucket's path first; then the other side.
      switch sync.arguments.count {
      case 0:
        let local = directories(prefix: prefix)
        if Sync.isLocal(prefix) { return local }
        return local + ((try? await bucketPaths(context, prefix: prefix)) ?? [])
      case 1:
        return Sync.isLocal(sync.arguments[0])
          ? try await bucketPaths(context, prefix: prefix) : directories(prefix: prefix)
      default: return []
      }
    case let move as Move:
      // Two bucket paths: SRC, then DEST.
      return move.options.arguments.count < 2 ? try await bucketPaths(context, prefix: prefix) : []
    case let copy as Copy:
      return copy.options.arguments.count < 2 ? try await bucketPaths(context, prefix: prefix) : []
    case let remove as Remove:
      // -r takes BUCKET[/PREFIX]; a first word with a / is BUCKET/KEY; else [BUCKET] KEY….
      if remove.recursive || remove.arguments.isEmpty && prefix.utf8.contains(UInt8(ascii: "/")) {
        return remove.arguments.isEmpty ? try await bucketPaths(context, prefix: prefix) : []
      }
      typed = remove.arguments
    case let stat as Stat: typed = stat.object.arguments
    case let cat as Cat: typed = cat.object.arguments
    case let set as SetCommand: typed = set.object.arguments
    case let restore as Restore: typed = restore.object.arguments
    case let url as URLCommand:
      if url.stdin {
        return url.arguments.isEmpty ? try await buckets(context, prefix: prefix, suffix: "") : []
      }
      typed = url.arguments
    default: return []
    }
    guard let bucket = typed.first else {
      // The first word: a bucket, or a key in the configured bucket.
      var candidates = try await buckets(context, prefix: prefix, suffix: "")
      if let configured = context.configuration.bucket {
        candidates += (try? await keys(context, bucket: configured, prefix: prefix)) ?? []
      }
      return candidates
    }
    return try await keys(context, bucket: bucket, prefix: prefix)
  }

  /// Folders and keys one level under `prefix`, as keys.
  private static func keys(_ context: Context, bucket: String, prefix: String) async throws
    -> [String]
  {
    let bucket = try context.strippingScheme(bucket)
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    // One page, checked by the paging driver's rules like every other.
    var cursor = PageCursor(
      ListRequest(bucket: bucket, prefix: prefix, delimiter: "/", limit: pageSize))
    guard let page = try await cursor.step(provider.pageFetcher)?.page else { return [] }
    return page.commonPrefixes + page.items.map(\.key)
  }

  /// Local directories whose path starts with `prefix`, each ending in `/`.
  static func directories(prefix: String) -> [String] {
    let folder = String(KeySegments.folder(of: prefix))
    let start = String(KeySegments.lastSegment(of: prefix))
    let names =
      (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
    return Array(
      names.sorted().filter { name in
        guard name.hasPrefix(start), start.hasPrefix(".") || !name.hasPrefix(".") else {
          return false
        }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder + name, isDirectory: &isDirectory)
          && isDirectory.boolValue
      }.prefix(pageSize).map { folder + $0 + "/" })
  }

  // MARK: - Running one completion

  /// Runs `work` with the configuration the typed words name, quietly, within the runtime's
  /// `completionDeadline`; `[]` on any failure or when the deadline passes.
  static func complete(
    words: [String], index: Int,
    _ work: @escaping @Sendable (Context, any KodoCommand) async throws -> [String]
  ) async -> [String] {
    let runtime = quiet(Runtime.current)
    let deadline = runtime.completionDeadline
    return await Runtime.$current.withValue(runtime) {
      guard index >= 1, index <= words.count,
        let command = try? await Kodo.asyncParseAsRoot(Array(words[1..<index])),
        let kodoCommand = command as? any KodoCommand
      else { return [] }
      var options = kodoCommand.global.merged(with: kodoCommand.root.global)
      options.verbose = false
      options.retries = 1
      // Whole seconds, at least one: the transport's own limits end a request no sooner.
      options.timeout = max(1, Int(deadline.components.seconds))
      guard let context = try? Context(options: options) else { return [] }
      let candidates = await withTaskGroup(of: [String]?.self) { group in
        group.addTask { try? await work(context, kodoCommand) }
        group.addTask {
          try? await Task.sleep(for: deadline)
          return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
      }
      return deliver(candidates ?? [])
    }
  }

  /// The `--config` value among the words before `index`, if one was typed (for completions
  /// that need no parse of the whole line). A plain value: an options group that ArgumentParser
  /// did not decode must never be read (it ends the process with its internal banner).
  static func typedConfig(words: [String], index: Int) -> String? {
    var words = Array(words.prefix(max(0, index)).dropFirst())
    words.removeAll { $0 == "--" }
    var config: String?
    var position = 0
    while position < words.count {
      let word = words[position]
      if word.hasPrefix("--config=") { config = String(word.dropFirst(9)) }
      if word == "--config", position + 1 < words.count {
        config = words[position + 1]
        position += 1
      }
      position += 1
    }
    return config
  }

  /// `runtime` with its diagnostics dropped: a completion prints nothing but candidates.
  private static func quiet(_ runtime: Runtime) -> Runtime {
    var runtime = runtime
    runtime.diagnosticsSink = { _, _ in }
    return runtime
  }

  /// A leading `oss://` or `kodo://`, and the rest.
  private static func splitScheme(_ text: String) -> (scheme: String, rest: String) {
    if let kind = ProviderRegistry.scheme(of: text) {
      return (kind.scheme, String(text.dropFirst(kind.scheme.count)))
    }
    return ("", text)
  }

  /// What every completion answers: the candidates a terminal can show as they are (one line
  /// each, nothing a terminal would interpret), each encoded for the shell that asked
  /// (`SAP_SHELL`, set by the generated scripts) so that it reaches it as an inert literal.
  static func deliver(_ candidates: [String]) -> [String] {
    CompletionCandidates.encode(
      candidates.filter { !$0.isEmpty && DisplayText(escaping: $0).text == $0 }, for: shell)
  }
}
