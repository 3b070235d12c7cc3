import ArgumentParser
import StorageCore

struct Find: KodoCommand {
  static let configuration = CommandConfiguration(
    commandName: "find",
    abstract: "Find the objects under a prefix by name, path, size, age, storage class or type.",
    discussion: """
      Every filter given must hold. The filters run here, on what the listing returns: every \
      object under the prefix is listed, and only the prefix narrows the service's work, so \
      give the longest prefix you can. Output is that of ls -r (text, -l, --json, -0), with \
      --limit, --marker and --summarize as in ls (--limit counts matches). Stderr shows how \
      many keys were scanned and matched so far: redrawn on a terminal, otherwise one line \
      every 10 seconds.

      Globs: * and ? stay within one / segment, ** crosses them (**/ is zero or more folders), \
      [abc] is one of a set. --name matches the last segment, --path and --include/--exclude \
      the whole key; --regex is searched anywhere in the key. Sizes are bytes or k, M, G, T \
      (powers of 1024); times are a duration before now (90s, 15m, 2h, 7d), a date (2024-06-01, the \
      start of that day in UTC) or an RFC 3339 time.

      Examples:
        kodo find photos --name '*.jpg' --larger 5M
        kodo find logs/2024/ --older 30d --storage-class ia -0 | xargs -0 -n1 echo
        kodo find photos --path '**/raw/*.dng' --newer 2024-06-01 --summarize
        kodo find --json photos --mime 'image/*' --exclude '**/thumbs/**'
        kodo find logs --larger 100M --sort size --reverse
      """
  )

  @OptionGroup var location: PrefixArgument

  @Option(help: ArgumentHelp("The key's last segment matches GLOB.", valueName: "GLOB"))
  var name: String?

  @Option(help: ArgumentHelp("The whole key matches GLOB.", valueName: "GLOB"))
  var path: String?

  @Option(help: ArgumentHelp("The key contains a match of RE.", valueName: "RE"))
  var regex: String?

  @Option(help: ArgumentHelp("Larger than SIZE (10k, 5M, 2G).", valueName: "SIZE"))
  var larger: String?

  @Option(help: ArgumentHelp("Smaller than SIZE (10k, 5M, 2G).", valueName: "SIZE"))
  var smaller: String?

  @Option(
    help: ArgumentHelp("Put after WHEN (7d ago, a date, or an RFC 3339 time).", valueName: "WHEN"))
  var newer: String?

  @Option(
    help: ArgumentHelp("Put before WHEN (7d ago, a date, or an RFC 3339 time).", valueName: "WHEN"))
  var older: String?

  @Option(
    name: .customLong("storage-class"),
    help: ArgumentHelp("In storage class C (standard, ia, archive, …).", valueName: "C"))
  var storageClass: String?

  @Option(help: ArgumentHelp("The MIME type matches GLOB (image/*).", valueName: "GLOB"))
  var mime: String?

  @OptionGroup var patterns: PatternOptions
  @OptionGroup var sorting: SortOptions

  @Flag(name: .customShort("l"), help: "Long form: also the storage class, hash and MIME type.")
  var long = false

  @Flag(help: "End with the number of matching objects and their total size.")
  var summarize = false

  @Option(
    help: ArgumentHelp("Stop after N matches and print where to resume.", valueName: "N"))
  var limit: Int?

  @Option(
    help: ArgumentHelp(
      "Resume a search at the marker a previous --limit printed.", valueName: "TOKEN"))
  var marker: String?

  @OptionGroup var pageSize: PageSizeOption

  @Flag(
    name: .customShort("0"), help: "Print the matching keys separated by NUL, nothing else.")
  var nulSeparated = false

  @Option(
    help: ArgumentHelp(
      "List up to N (1-64) top-level folders at once (same output, same order).",
      valueName: "N"))
  var parallel: Int?

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  func validate() throws {
    try sorting.validate(limit: limit, marker: marker)
    try pageSize.check()
    try ListingChecks.limit(limit, marker: marker, parallel: parallel, recursive: true)
    try ListingChecks.nulSeparated(
      nulSeparated, json: global.json, long: long, summarize: summarize)
  }

  /// The filters, parsed (bad values are errors 65 that name the option).
  func filter(now: Int64) throws(StorageError) -> ObjectFilter {
    var filter = ObjectFilter()
    filter.name = try name.map { value throws(StorageError) in try Glob(value) }
    filter.path = try path.map { value throws(StorageError) in try Glob(value) }
    filter.mime = try mime.map { value throws(StorageError) in try Glob(value) }
    filter.regex = try regex.map { value throws(StorageError) in try KeyRegex(value) }
    filter.larger = try larger.map { value throws(StorageError) in
      try SizeText.bytes(value, option: "--larger")
    }
    filter.smaller = try smaller.map { value throws(StorageError) in
      try SizeText.bytes(value, option: "--smaller")
    }
    filter.newer = try newer.map { value throws(StorageError) in
      try WhenText.timestamp(value, option: "--newer", now: now)
    }
    filter.older = try older.map { value throws(StorageError) in
      try WhenText.timestamp(value, option: "--older", now: now)
    }
    filter.storageClass = storageClass
    filter.patterns = try patterns.keyPatterns()
    return filter
  }

  func execute(_ context: Context) async throws {
    let json = context.options.json
    try ListingChecks.nulSeparated(nulSeparated, json: json)
    var filter = try self.filter(now: WallClock.system.unixSeconds)
    let (bucket, prefix) = try BucketPath.split(location.target, context: context)
    let provider = try context.provider()
    try provider.validateBucketName(bucket)
    // A filter that cannot match on this provider is a usage error, not an empty result.
    let kind = try context.providerKind()
    filter.storageClass = try storageClass.map { try StorageClassNames.resolve($0, for: kind) }
    if mime != nil && !kind.longColumns.mimeTypes {
      throw ValidationError(
        "--mime needs each object's content type, which \(kind.displayName) listings do not carry; filter with --name or --path (kodo stat shows one object's type)"
      )
    }
    let output = OutputStream.standardOutput()
    let search = Search(
      renderer: ListRenderer(
        mode: json ? .json : nulSeparated ? .nul : .text, long: long,
        humanSizes: output.isTerminal, relativeTo: nil,
        palette: Palette(terminal: output.isTerminal, environment: context.environment),
        columns: kind.longColumns),
      output: output, progress: Progress.forScan(), filter: filter,
      limit: limit, sorter: sorting.sorter(context: context))
    defer { search.progress.clear() }
    let request = ListRequest(
      bucket: bucket, prefix: prefix, marker: marker, limit: pageSize.entries)
    let resume = ResumeCommand(
      "find", resumeArguments(bucket: bucket, prefix: prefix, json: json), context: context)
    do {
      try await RecursiveScan(
        provider: provider, bucket: bucket, prefix: prefix, pageSize: request.limit,
        parallel: parallel, marker: marker,
        resume: { resume.note(marker: $0) }
      ).run { objects, element in
        try await search.add(objects, page: element, request: request, provider: provider)
      }
    } catch let failure as CommandFailure {
      throw NotFoundAdvice.forListing(
        failure, bucket: bucket, target: location.target, context: context)
    }
    search.progress.clear()
    try search.drain()
    if let next = search.next {
      if json {
        var line = JSONLine()
        line.string("type", "next")
        line.string("marker", next)
        try output.write(line)
      } else {
        Diagnostics.note("more matches may follow; " + resume.note(marker: next))
      }
    }
    if summarize { try search.renderer.summary(partial: search.next != nil, to: output) }
    try output.flush()
    if search.next == nil, let hint = filter.patterns.nothingIncludedHint {
      Diagnostics.note(hint)
    }
    try search.renderer.checkRecords()
  }
}

extension Find {
  /// The arguments that continue this search from a marker: every filter, and what changes
  /// how the matches are shown.
  func resumeArguments(bucket: String, prefix: String, json: Bool) -> [String] {
    var parts: [String] = []
    let options: [(String, String?)] = [
      ("--name", name), ("--path", path), ("--regex", regex), ("--larger", larger),
      ("--smaller", smaller), ("--newer", newer), ("--older", older),
      ("--storage-class", storageClass), ("--mime", mime),
    ]
    for case (let flag, let value?) in options { parts += [flag, value] }
    for pattern in patterns.include { parts += ["--include", pattern] }
    for pattern in patterns.exclude { parts += ["--exclude", pattern] }
    if long { parts.append("-l") }
    if json { parts.append("--json") }
    if nulSeparated { parts.append("-0") }
    if summarize { parts.append("--summarize") }
    if let pageSize = pageSize.pageSize { parts += ["--page-size", String(pageSize)] }
    if let limit { parts += ["--limit", String(limit)] }
    parts.append(prefix.isEmpty ? bucket : bucket + "/" + prefix)
    return parts
  }
}

/// What a search has found so far, and where a search stopped by `--limit` resumes.
final class Search {
  var renderer: ListRenderer
  let output: OutputStream
  let progress: Progress
  let filter: ObjectFilter
  let limit: Int?
  let sorter: ExternalSorter?
  private(set) var matched = 0
  /// Where the search resumes after `--limit` stopped it (`nil`: it did not stop early).
  private(set) var next: String?

  init(
    renderer: ListRenderer, output: OutputStream, progress: Progress, filter: ObjectFilter,
    limit: Int?, sorter: ExternalSorter?
  ) {
    self.sorter = sorter
    self.renderer = renderer
    self.output = output
    self.progress = progress
    self.filter = filter
    self.limit = limit
  }

  /// Writes the matches among `objects`; returns whether to go on.
  func add(
    _ objects: [ObjectEntry], page element: ListPages.Element?, request: ListRequest,
    provider: any StorageProvider
  ) async throws -> Bool {
    // Most pages of a broad search keep everything: then the page itself, not a copy.
    var kept = filter.kept(objects)
    var stop = false
    if let limit, matched + kept.count >= limit, let element {
      // Keep only what the limit allows, and find the marker right after the last one kept.
      kept = Array(kept.prefix(limit - matched))
      stop = true
      next = try await Self.marker(
        after: kept.last, in: element, request: request, provider: provider)
    }
    progress.add(objects.count, matched: kept.count)
    matched += kept.count
    if let sorter {
      try sorter.add(kept)
    } else if !kept.isEmpty {
      progress.clear()
      try renderer.objects(kept, to: output)
      try output.flush()
    }
    return !stop
  }

  /// Writes what the sorter holds.
  func drain() throws(StorageError) {
    try sorter?.drain { (batch: [ObjectEntry]) throws(StorageError) in
      try renderer.objects(batch, to: output)
    }
  }

  /// The marker that resumes right after `last` in `element`'s page: the page's own when `last`
  /// is its last entry, else that of the same page fetched again from its start, cut after
  /// `last`.
  private static func marker(
    after last: ObjectEntry?, in element: ListPages.Element, request: ListRequest,
    provider: any StorageProvider
  ) async throws -> String? {
    let items = element.page.items
    guard let last, let index = items.lastIndex(where: { ExactKey.same($0.key, last.key) }),
      index + 1 < items.count
    else { return element.page.nextMarker }
    var again = request
    again.marker = element.startMarker
    again.limit = index + 1
    // The paging driver's rules hold for this page too.
    var cursor = PageCursor(again)
    let page = try await cursor.step(provider.pageFetcher)?.page
    guard let again = page?.items.last, ExactKey.same(again.key, last.key) else {
      throw StorageError(
        .protocolError,
        "the listing changed while it was read (the page fetched again ends elsewhere); run the search again"
      )
    }
    return page?.nextMarker ?? element.page.nextMarker
  }
}

/// `--include GLOB` and `--exclude GLOB` (repeatable), on the whole key.
struct PatternOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Keep only keys that match GLOB (repeatable: any of them).", valueName: "GLOB"))
  var include: [String] = []

  @Option(
    help: ArgumentHelp("Leave out keys that match GLOB (repeatable).", valueName: "GLOB"))
  var exclude: [String] = []

  func keyPatterns() throws(StorageError) -> KeyPatterns {
    try KeyPatterns(include: include, exclude: exclude)
  }
}

/// `--sort` and `--reverse`.
struct SortOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Order the objects by name, size or time (any number, in bounded memory).",
      valueName: "ORDER"))
  var sort: ListingOrder?

  @Flag(help: "With --sort: largest, newest or last name first.")
  var reverse = false

  func validate(limit: Int?, marker: String?) throws {
    if reverse && sort == nil { throw ValidationError("--reverse needs --sort") }
    if sort != nil && (limit != nil || marker != nil) {
      throw ValidationError("--sort cannot be combined with --limit or --marker")
    }
  }

  func sorter(context: Context) -> ExternalSorter? {
    guard let sort else { return nil }
    return ExternalSorter(
      order: sort, reverse: reverse,
      directory: context.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
  }
}
