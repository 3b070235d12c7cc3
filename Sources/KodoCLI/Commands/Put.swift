import ArgumentParser
import StorageCore

struct Put: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "put",
    abstract: "Upload files (or stdin) as objects, never replacing one unless --force.",
    discussion: """
      DEST is BUCKET[/KEY]; a DEST ending in / or a bare BUCKET is a folder, and the file's name \
      is appended. --key KEY gives the key exactly (one source). - reads stdin, which needs an \
      exact key. An existing object is never replaced: the service refuses it (Kodo's insertOnly, \
      OSS's forbid-overwrite), the file is reported and the exit status is 73 at the end, unless \
      --force (replace) or --skip-existing (keep it, counted as skipped).

      Files up to --multipart-threshold (default 8M) go in one request; larger ones in parts of \
      --part-size (default 4M on Kodo, so that the service's hash is the qetag; 8M on OSS), \
      --parallel N parts at once (default 4; small files, N at once). The whole object is checked after completion \
      (Kodo's hash against the file's, OSS's CRC-64): a mismatch is exit status 76. An \
      interrupted upload in parts resumes on the next identical put (a checkpoint under \
      $XDG_STATE_HOME/kodo/uploads, else ~/.local/state/kodo/uploads): the parts the service \
      holds are not sent again. --no-resume starts afresh; put --abort with the same source and \
      DEST ends the service's upload and forgets it. One failing file never stops the others.

      -r uploads the files under each DIR: a key is DEST's folder and the file's path below DIR \
      (DIR's own name is not part of it). --include and --exclude match that relative path \
      (see find --help for the patterns). Symbolic links are reported and skipped unless \
      --follow-symlinks; devices, FIFOs and sockets are skipped; a name that is not valid UTF-8 \
      is reported and fails (exit 65). --skip-same keeps an existing object with the file's \
      size and hash (Kodo's hash, OSS's CRC-64), so an interrupted put -r --skip-same finishes \
      when run again; an object that differs is still refused (73) unless --force.

      Examples:
        kodo put report.pdf docs              # bucket docs, key report.pdf
        kodo put a.txt b.txt photos/2024/     # keys 2024/a.txt, 2024/b.txt
        kodo put --key 'exact name' a.txt photos
        tar c dir | kodo put - backups/dir.tar
        kodo put --force --meta owner=me a.txt photos/a.txt
        kodo put -r --skip-same ./site web/   # site/css/a.css: key css/a.css
      """
  )

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  @Option(help: ArgumentHelp("The destination key, exactly (one source).", valueName: "KEY"))
  var key: String?

  @Flag(help: "Replace an existing object.")
  var force = false

  @Flag(help: "Keep an existing object (counted as skipped).")
  var skipExisting = false

  @Flag(help: "Keep an existing object with the file's size and hash (counted as skipped).")
  var skipSame = false

  @Flag(name: .shortAndLong, help: "Upload the files under each DIR (keys: DEST + relative path).")
  var recursive = false

  @Option(
    help: ArgumentHelp(
      "With -r, only paths that match PATTERN (repeatable).", valueName: "PATTERN"))
  var include: [String] = []

  @Option(
    help: ArgumentHelp(
      "With -r, leave out paths that match PATTERN (repeatable).", valueName: "PATTERN"))
  var exclude: [String] = []

  @Flag(help: "With -r, follow symbolic links (a link back to a folder above is skipped).")
  var followSymlinks = false

  @Option(
    help: ArgumentHelp(
      "Upload larger files in parts (default 8M; k, M, G: powers of 1024).", valueName: "SIZE"))
  var multipartThreshold: String?

  @Option(
    help: ArgumentHelp("The size of a part (default 4M on Kodo, 8M on OSS).", valueName: "SIZE"))
  var partSize: String?

  @Option(help: ArgumentHelp("N files or parts at once, 1-64 (default 4).", valueName: "N"))
  var parallel: Int?

  @Option(
    help: ArgumentHelp("The content type (default: from the file's name).", valueName: "TYPE"))
  var mime: String?

  @Option(help: ArgumentHelp("User metadata (repeatable), byte-exact.", valueName: "NAME=VALUE"))
  var meta: [String] = []

  @Option(help: ArgumentHelp("The storage class (standard, ia, archive, …).", valueName: "C"))
  var storageClass: String?

  @Flag(help: "Start an interrupted upload afresh instead of resuming it.")
  var noResume = false

  @Flag(help: "End the interrupted upload of the same source to DEST and forget it.")
  var abort = false

  @Argument(
    help: ArgumentHelp(
      "The files (- for stdin), then DEST: BUCKET[/KEY].", valueName: "FILE… DEST"),
    completion: .file())
  var arguments: [String] = []

  func validate() throws {
    guard arguments.count >= 2 else { throw ValidationError("expected FILE... DEST") }
    if force && skipExisting {
      throw ValidationError("--force and --skip-existing cannot be given together")
    }
    if let parallel, !(1...64).contains(parallel) {
      throw ValidationError("--parallel must be between 1 and 64")
    }
    if key != nil && arguments.count > 2 { throw ValidationError("--key needs exactly one source") }
    if recursive && key != nil { throw ValidationError("--key cannot be given with -r") }
    if !recursive && (!include.isEmpty || !exclude.isEmpty || followSymlinks) {
      throw ValidationError("--include, --exclude and --follow-symlinks go with -r")
    }
    if recursive && arguments.dropLast().contains("-") {
      throw ValidationError("- (stdin) cannot be given with -r")
    }
    if skipSame && force {
      throw ValidationError("--force and --skip-same cannot be given together")
    }
    if arguments.dropLast().filter({ $0 == "-" }).count > 0 && arguments.count > 2 {
      throw ValidationError("- (stdin) must be the only source")
    }
  }

  func execute(_ context: Context) async throws {
    let writer = try context.provider((any ObjectWriting).self, for: "uploads")
    let kind = try context.providerKind()
    let settings = try PutSettings(
      command: self, kind: kind, stateDirectory: UploadCheckpoints.directory(context.environment))
    guard let destination = arguments.last else { return }
    let (bucket, target) = try BucketPath.split(destination, context: context)
    try writer.validateBucketName(bucket)
    let sources = Array(arguments.dropLast())
    let run = PutRun(
      writer: writer, settings: settings, json: context.options.json,
      noFollow: recursive && !followSymlinks)
    if recursive {
      let patterns = try KeyPatterns(include: include, exclude: exclude)
      let folder = target.isEmpty || KeySegments.endsWithSlash(target) ? target : target + "/"
      let items = PutTreeJobs(
        roots: sources, bucket: bucket, folder: folder, patterns: patterns,
        followLinks: followSymlinks)
      if abort {
        var aborted = 0
        for case .job(let job) in items where try await run.abort(job, quietly: true) {
          aborted += 1
        }
        guard aborted > 0 else {
          throw StorageError(
            .notFound, "no interrupted upload of a file under these folders to abort")
        }
        return
      }
      guard skipSame else { return try await run.run(items) }
      // One listing of the folder up front instead of a request per file; the service
      // still refuses an object that appeared since.
      let known = try await FolderListing.listing(writer, bucket: bucket, prefix: folder)
      try await run.run(
        items.lazy.map { item in
          guard case .job(var job) = item else { return item }
          job.destinationListing = DestinationListing(object: known.take(job.location.key))
          return .job(job)
        })
      return
    }
    let folder = key == nil && (target.isEmpty || KeySegments.endsWithSlash(target))
    if folder && sources.count == 1 && sources[0] == "-" {
      throw ValidationError("stdin (-) needs an exact key: BUCKET/KEY, or --key KEY")
    }
    if !folder && key == nil && sources.count > 1 {
      throw ValidationError(
        "\(DisplayText(quoting: destination)) names one object: end it with / to put several files into that folder"
      )
    }
    let jobs = sources.map { source in
      let name = source == "-" ? "" : String(KeySegments.lastSegment(of: source))
      let objectKey = key ?? (folder ? target + name : target)
      return PutItem.job(
        PutJob(source: source, location: ObjectLocation(bucket: bucket, key: objectKey)))
    }
    if abort {
      for case .job(let job) in jobs { _ = try await run.abort(job) }
      return
    }
    try await run.run(jobs)
  }
}

/// One source and where it goes.
struct PutJob: Sendable {
  /// Where the file is: a path (or `-`), or the root of the walk that found it (the path is
  /// then the root, `/`, and the key's part after the folder: made when asked, as a run that
  /// keeps an unchanged file never asks).
  private let origin: Origin
  let location: ObjectLocation
  /// For `sync`: what the destination's listing held at the key (compared first, replaced when
  /// it differs).
  var sync: SyncTarget? = nil
  /// The file's size as a walk of its tree found it (`nil`: not looked at yet).
  var size: Int64? = nil
  /// For `put -r --skip-same`: what the destination folder's listing, read before the
  /// uploads, held at the key (`nil`: not listed; compare with the object's details).
  var destinationListing: DestinationListing? = nil

  private enum Origin {
    case path(String)
    /// The walk's root, and how many bytes of the key are the folder before the relative path.
    case tree(root: String, prefixCount: Int)
  }

  init(source: String, location: ObjectLocation, size: Int64? = nil) {
    origin = .path(source)
    self.location = location
    self.size = size
  }

  /// The job of a file a walk found (its key is the walk's key prefix and relative path).
  init(file: LocalTree.File, bucket: String) {
    origin = .tree(root: file.root, prefixCount: file.prefixCount)
    location = ObjectLocation(bucket: bucket, key: file.key)
    size = file.size
  }

  /// The file's path (or `-` for stdin).
  var source: String {
    switch origin {
    case .path(let path): path
    case .tree(let root, let prefixCount):
      LocalTree.File.path(
        root: root,
        relative: String(decoding: location.key.utf8.dropFirst(prefixCount), as: UTF8.self))
    }
  }

  /// Whether the source is stdin (`-`).
  var isStandardInput: Bool {
    guard case .path(let path) = origin else { return false }
    return path == "-"
  }

  /// The source's size: as the walk found it, else from a `stat` (`nil` for stdin, or a file
  /// that cannot be read: its upload says why).
  var sourceSize: Int64? {
    isStandardInput ? nil : size ?? (try? PutSource.identity(of: source))?.identity.size
  }
}

/// What a listing of the destination held at a job's key, read before the job ran: the object,
/// or `nil` for none (an object that appeared since is still refused by the service). A
/// reference, so that a job stays small as a run of thousands passes it along.
final class DestinationListing: Sendable {
  let object: ObjectEntry?

  init(object: ObjectEntry?) { self.object = object }
}

/// What `put` is given to do, one at a time: a source to upload, or what a walk of a local tree
/// met on the way (a skip to tell, a failure to count).
enum PutItem: Sendable {
  case job(PutJob)
  case skipped(DisplayText)
  case failed(StorageError)
}

/// `put -r`'s items: the files under each root (``LocalTree``), each with its key (the folder,
/// then the path below the root), those the patterns keep.
struct PutTreeJobs: Sequence {
  let roots: [String]
  let bucket: String
  let folder: String
  let patterns: KeyPatterns
  let followLinks: Bool

  func makeIterator() -> Iterator {
    Iterator(
      roots: roots.makeIterator(), bucket: bucket, folder: folder, patterns: patterns,
      followLinks: followLinks)
  }

  /// The walk of each root in turn.
  struct Iterator: IteratorProtocol {
    var roots: IndexingIterator<[String]>
    let bucket: String
    let folder: String
    let patterns: KeyPatterns
    let followLinks: Bool
    var walk: LocalTree.Iterator? = nil

    mutating func next() -> PutItem? {
      while true {
        if walk == nil {
          guard let root = roots.next() else { return nil }
          walk = LocalTree(root: root, followLinks: followLinks, keyPrefix: folder).makeIterator()
        }
        guard let item = walk?.next() else {
          walk = nil
          continue
        }
        switch item {
        case .file(let file):
          // The file's key is the folder and its relative path already (`keyPrefix`).
          guard patterns.isEmpty || patterns.keeps(file.relative) else { continue }
          return .job(PutJob(file: file, bucket: bucket))
        case .skipped(let text): return .skipped(text)
        case .failed(let error): return .failed(error)
        }
      }
    }
  }
}
