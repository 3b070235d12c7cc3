import StorageCore

/// The verbs of other tools (ossutil, mc, aws, qshell, coreutils) typed to kodo: what kodo
/// does instead, or that it does not do it (yet), never a lookalike command.
enum ForeignVerbs {
  /// kodo's commands that read, for a verb it does not have.
  static let reads = "ls, stat, cat, get, url, du, find, browse"

  /// What to say for `word` (the unknown command) given the whole command line, or `nil` when
  /// `word` is no other tool's verb.
  static func advice(_ word: String, arguments: [String]) -> String? {
    switch word {
    case "version":
      return "unknown command 'version': kodo --version prints the version"
    case "copy", "download", "fget", "qdownload":
      return "kodo has no '\(word)': " + download(after: word, in: arguments)
    case "del", "delete", "remove":
      return "kodo has no '\(word)': kodo rm [BUCKET] KEY... deletes objects (-r a folder)"
    case "move", "rename":
      return "kodo has no '\(word)': kodo mv BUCKET/KEY BUCKET/KEY moves an object"
    case "upload", "fput", "qupload":
      return "kodo has no '\(word)': kodo put FILE... BUCKET[/KEY] uploads"
    case "mirror", "rsync":
      return
        "kodo has no '\(word)': kodo sync DIR BUCKET/PREFIX/ (or the reverse) copies what is missing or differs"
    case "mb", "rb", "mkdir", "rmdir":
      return
        "kodo has no '\(word)' yet: this version reads (\(reads)), uploads (put), deletes (rm), moves and copies (mv, cp), syncs folders (sync), and changes objects in place (set, restore)"
    case "chgm", "chtype", "chstatus", "forbidden", "set-meta", "setmeta":
      return
        "kodo has no '\(word)': kodo set [BUCKET] KEY... --mime, --meta, --storage-class or --status changes objects in place"
    case "restorear", "restore-object":
      return "kodo has no '\(word)': kodo restore [BUCKET] KEY... --days N thaws archived objects"
    case "presign", "sign", "share", "privateurl":
      return "kodo has no '\(word)': kodo url [BUCKET] KEY prints a signed download link"
    case "head", "info":
      return "kodo has no '\(word)': kodo stat [BUCKET] KEY shows an object's metadata"
    case "listbucket", "listbucket2", "tree":
      return "kodo has no '\(word)': kodo ls -r BUCKET[/PREFIX] lists every object"
    default:
      return nil
    }
  }

  /// `kodo get …` for `cp SOURCE [DEST]`: a remote source (`BUCKET/KEY`, a scheme) downloaded
  /// to DEST, a folder (ending in `/`) with `get -r`.
  static func download(after word: String, in arguments: [String]) -> String {
    let rest = arguments.drop { $0 != word }.dropFirst().filter { !$0.hasPrefix("-") }
    let generic = "download with kodo get [BUCKET] KEY [-o PATH], or kodo get -r BUCKET/PREFIX DIR"
    guard let source = rest.first else { return generic }
    var path = source
    for scheme in ["kodo://", "oss://", "s3://", "qiniu://"] where path.hasPrefix(scheme) {
      path = String(path.dropFirst(scheme.count))
    }
    guard let (bucket, key) = KeySegments.splitAtFirstSlash(path), !bucket.isEmpty else {
      return generic
    }
    let destination = rest.dropFirst().first
    let bucketText = ShellQuote.quote(String(bucket)).text
    if key.isEmpty || KeySegments.endsWithSlash(key) {
      let folder = ShellQuote.quote(String(bucket) + "/" + String(key)).text
      return "to download a folder, run: kodo get -r \(folder) "
        + (destination.map { ShellQuote.quote($0).text } ?? "DIR")
    }
    var command = "kodo get \(bucketText) \(ShellQuote.quote(String(key)).text)"
    // A folder as DEST: get names the file after the key's last segment itself.
    if let destination, destination != ".", destination != "./" {
      let file =
        KeySegments.endsWithSlash(destination)
        ? destination + KeySegments.lastSegment(of: key) : destination
      command += " -o \(ShellQuote.quote(String(file)).text)"
    }
    return "to download, run: " + command
  }
}
