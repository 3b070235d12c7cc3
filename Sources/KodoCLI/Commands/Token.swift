import ArgumentParser
import Foundation
import KodoCore
import StorageCore

struct Token: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "token",
    abstract: "Print Authorization values and upload tokens, exactly as Qiniu's SDKs make them.",
    discussion: """
      For scripts that call Kodo's APIs with curl. Each prints the value alone on one line.

      Examples:
        auth=$(kodo token qbox https://uc.qiniuapi.com/buckets)
        curl -H "Authorization: $auth" https://uc.qiniuapi.com/buckets
        kodo token qiniu --json https://rs-z0.qiniuapi.com/stat/bXktYnVja2V0OmEudHh0
        kodo token upload --expires 1h my-bucket:uploads/a.txt
      """,
    subcommands: [QBox.self, Qiniu.self, Upload.self]
  )

  @OptionGroup var global: GlobalOptions
  @ParentCommand var root: Kodo

  struct QBox: KodoCommand {
    static let configuration = CommandConfiguration(
      commandName: "qbox",
      abstract: "A legacy QBox Authorization value for a request.",
      discussion: """
        Signs path?query and, for application/x-www-form-urlencoded, the body.

        Example:
          kodo token qbox https://uc.qiniuapi.com/buckets
        """
    )

    @Argument(help: "The request URL, exactly as it will be sent.")
    var url: String

    @Option(
      name: .customLong("content-type"),
      help: ArgumentHelp("The request's Content-Type.", valueName: "CT"))
    var contentType: String?

    @Option(
      help: ArgumentHelp("The request body (signed only for form content).", valueName: "TEXT"))
    var body: String?

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: Kodo

    func execute(_ context: Context) async throws {
      let request = SignableRequest(
        method: "POST", url: url, contentType: contentType, body: Array((body ?? "").utf8))
      try TokenOutput.sign(request, scheme: "QBox", date: nil, context: context)
    }
  }

  struct Qiniu: KodoCommand {
    static let configuration = CommandConfiguration(
      commandName: "qiniu",
      abstract: "A Qiniu (v2) Authorization value for a request.",
      discussion: """
        Signs the method, path?query, Host, Content-Type, X-Qiniu-* headers and X-Qiniu-Date \
        (now, unless --date or --no-date), and the body for non-binary content. Send the same \
        X-Qiniu-Date header with the request: --json prints it as xQiniuDate.

        Example:
          kodo token qiniu --json https://rs-z0.qiniuapi.com/stat/bXktYnVja2V0OmEudHh0
        """
    )

    @Argument(help: "The request URL, exactly as it will be sent.")
    var url: String

    @Option(help: ArgumentHelp("The method.", valueName: "M"))
    var method: String = "GET"

    @Option(
      name: .customLong("content-type"),
      help: ArgumentHelp(
        "The request's Content-Type, as Kodo's SDKs send it.",
        valueName: "CT"))
    var contentType: String = RequestSigning.formContentType

    @Option(help: ArgumentHelp("The request body.", valueName: "TEXT"))
    var body: String?

    @Option(
      name: .customLong("header"),
      help: ArgumentHelp(
        "An X-Qiniu-* header to sign, as 'X-Qiniu-Name: value' (repeatable).", valueName: "HEADER"))
    var headers: [String] = []

    @Option(
      help: ArgumentHelp(
        "The X-Qiniu-Date to sign, YYYYMMDDTHHMMSSZ (default: now).", valueName: "YYYYMMDDTHHMMSSZ")
    )
    var date: String?

    @Flag(name: .customLong("no-date"), help: "Sign without X-Qiniu-Date.")
    var noDate = false

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: Kodo

    func validate() throws {
      if date != nil && noDate { throw ValidationError("--date and --no-date cannot be combined") }
      if let date, RequestSigning.parseQiniuDate(date) == nil {
        throw ValidationError("--date must look like 20240101T000000Z")
      }
      for header in headers {
        guard let colon = header.firstIndex(of: ":"),
          !header[..<colon].trimmingCharacters(in: .whitespaces).isEmpty
        else {
          throw ValidationError("--header must look like 'X-Qiniu-Name: value'")
        }
        let name = header[..<colon].trimmingCharacters(in: .whitespaces)
        guard name.lowercased().hasPrefix("x-qiniu-"), name.count > 8 else {
          throw ValidationError(
            "--header \(DisplayText(quoting: name)) would not be signed: the Qiniu signature covers only X-Qiniu-* headers (besides the method, path, Host, Content-Type and body)"
          )
        }
      }
      guard !method.isEmpty, method.allSatisfy({ $0.isLetter }) else {
        throw ValidationError("--method must be an HTTP method such as GET or POST")
      }
    }

    func execute(_ context: Context) async throws {
      var signed: [(String, String)] = headers.compactMap { header in
        guard let colon = header.firstIndex(of: ":") else { return nil }
        return (
          header[..<colon].trimmingCharacters(in: .whitespaces),
          header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        )
      }
      var xQiniuDate: String?
      if !noDate {
        xQiniuDate = date ?? RequestSigning.qiniuDate(Date())
        signed.removeAll { $0.0.lowercased() == "x-qiniu-date" }
        signed.append(("X-Qiniu-Date", xQiniuDate ?? ""))
      }
      let request = SignableRequest(
        method: method, url: url, contentType: contentType.isEmpty ? nil : contentType,
        headers: signed,
        body: Array((body ?? "").utf8))
      try TokenOutput.sign(request, scheme: "Qiniu", date: xQiniuDate, context: context)
    }
  }

  struct Upload: KodoCommand {
    static let configuration = CommandConfiguration(
      commandName: "upload",
      abstract: "An upload token for BUCKET or BUCKET:KEY.",
      discussion: """
        The put policy is {"scope":…,"deadline":…} followed by the fields of --policy, written as \
        Qiniu's Python SDK writes it.

        Examples:
          kodo token upload my-bucket
          kodo token upload --expires 15m --policy '{"insertOnly":1}' my-bucket:a.txt
        """
    )

    @Argument(help: ArgumentHelp("The scope: a bucket, or bucket:key.", valueName: "BUCKET[:KEY]"))
    var scope: String

    @Option(
      help: ArgumentHelp(
        "How long the token works: seconds, or 90s, 15m, 2h, 7d (default 3600).", valueName: "D"))
    var expires: String?

    @Option(
      help: ArgumentHelp(
        "When the token stops working, in Unix seconds (instead of --expires).", valueName: "UNIX"))
    var deadline: Int64?

    @Option(help: ArgumentHelp("More put-policy fields, as a JSON object.", valueName: "JSON"))
    var policy: String?

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: Kodo

    func validate() throws {
      try Expiry.validate(deadline: deadline, expires: expires)
    }

    func execute(_ context: Context) async throws {
      let signer = try TokenOutput.signer(context)
      let bucket = String(scope.prefix { $0 != ":" })
      try BucketName.validate(bucket)
      let seconds = try DurationParser.seconds(expires ?? "3600")
      let extra: JSONValue?
      if let policy {
        do {
          extra = try JSONValue.parse(policy)
        } catch {
          throw StorageError(.invalidInput, "--policy is not valid JSON: \(error)")
        }
      } else {
        extra = nil
      }
      let deadline = try Expiry.deadline(
        self.deadline, expiresIn: seconds, now: WallClock.system.unixSeconds, signed: "a token")
      let json = try signer.uploadPolicy(scope: scope, deadline: deadline, extra: extra)
      let token = signer.uploadToken(policy: json)
      let output = OutputStream.standardOutput()
      if context.options.json {
        var line = JSONLine()
        line.string("token", token)
        line.int("deadline", deadline)
        line.raw("policy", json: json)
        try output.write(line)
      } else {
        try output.line(DisplayText(escaping: token))
      }
      try output.flush()
    }
  }
}

enum TokenOutput {
  /// The provider, which has to sign tokens (it needs the credentials, but sends nothing).
  /// On a provider that signs no tokens (OSS), a usage error (64): the subcommands are Kodo's.
  static func signer(_ context: Context) throws -> any TokenSigning {
    let provider = try context.provider()
    guard let signer = provider as? any TokenSigning else {
      throw ValidationError(
        "token qbox, token qiniu and token upload are Kodo's; \(provider.serviceName) has no such tokens (choose Kodo with --provider kodo)"
      )
    }
    return signer
  }

  /// Signs `request` (whose URL has to be http(s) with a host) in `scheme` and prints the
  /// Authorization value, with `date` (the signed X-Qiniu-Date) under `--json`.
  static func sign(_ request: SignableRequest, scheme: String, date: String?, context: Context)
    throws
  {
    let signer = try signer(context)
    guard URLParts(request.url).isHTTPWithHost else {
      throw StorageError(
        .invalidInput,
        "expected an http:// or https:// URL, got \(DisplayText(quoting: request.url))")
    }
    guard let authorization = signer.authorization(for: request, scheme: scheme) else {
      throw StorageError(.invalidInput, "\(signer.serviceName) has no \(scheme) signature")
    }
    let output = OutputStream.standardOutput()
    if context.options.json {
      var line = JSONLine()
      line.string("authorization", authorization)
      line.string("xQiniuDate", date)
      try output.write(line)
    } else {
      try output.line(DisplayText(escaping: authorization))
    }
    try output.flush()
  }
}
