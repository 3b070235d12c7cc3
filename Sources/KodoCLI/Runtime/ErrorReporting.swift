import ArgumentParser
import Foundation
import StorageCore

extension StorageError {
  /// The contract's exit code for this error.
  var exitCode: Int32 {
    switch kind {
    case .notFound: 66
    case .unauthorized: 77
    case .temporary: 75
    case .unavailable: 69
    case .protocolError: 76
    case .invalidInput: 65
    case .configuration: 78
    case .cancelled: 130
    case .outputClosed: 0
    case .localIO: 74
    case .rejected: 1
    case .exists, .preconditionFailed: 73
    }
  }
}

extension StorageError.Hint {
  /// What to do, in the command line's words.
  var advice: DisplayText {
    switch self {
    case .needsDownloadDomain(let bucket):
      "pass --domain BASE_URL, or set domains.\(bucket) in the config file"
    case .restartListing:
      "list again without --marker"
    case .noSuchBucket:
      "kodo buckets lists yours"
    case .fieldFromArguments:
      "give it as an argument (BUCKET[:KEY], --deadline or --expires) instead"
    case .checkCredentials(let service, let credential):
      Self.credentialAdvice(oss: service == "OSS", credential)
    }
  }

  /// What to check, named where it came from: the environment variable when it is set (it wins
  /// over the config file), else the config file's key.
  private static func credentialAdvice(oss: Bool, _ credential: StorageError.Credential)
    -> DisplayText
  {
    let environment = Runtime.current.environment
    func source(_ variable: String, _ key: String) -> String {
      (environment[variable] ?? "").isEmpty ? "\"\(key)\" in the config file" : variable
    }
    let access = source(oss ? "OSS_ACCESS_KEY_ID" : "QINIU_ACCESS_KEY", "accessKey")
    let secret = source(oss ? "OSS_ACCESS_KEY_SECRET" : "QINIU_SECRET_KEY", "secretKey")
    switch credential {
    case .accessKey: return "check \(access)"
    case .secretKey:
      return "check \(secret)" + (oss ? ", and for V4 signatures the region" : "")
    case .both:
      return access.hasSuffix("config file") && secret.hasSuffix("config file")
        ? "check \"accessKey\" and \"secretKey\" in the config file"
        : "check \(access) and \(secret)"
    }
  }
}

/// A failure, and the notes that follow its error line (such as where a listing can resume).
struct CommandFailure: Error {
  var error: StorageError
  var notes: [DisplayText]
}

/// The one error path: every failure of a run, from parsing to the service, becomes one
/// `kodo: error: …` line (and, with `--json`, one JSON line) on stderr and the contract's exit
/// code.
enum ErrorReporting {
  /// Reports `error` and returns the exit status.
  static func report(
    _ error: any Error, command: (any ParsableCommand.Type)?, arguments: [String]
  ) -> Int32 {
    let json = wantsJSON(arguments)
    switch error {
    case let failure as CommandFailure:
      return report(failure.error, notes: failure.notes, json: json)
    case let failure as StorageError:
      return report(failure, notes: [], json: json)
    case let exit as ExitCode:
      return exit.rawValue
    case is CancellationError:
      return Signals.exitCode
    default:
      return UsageErrors.report(error, command: command, arguments: arguments, json: json)
    }
  }

  static func report(_ error: StorageError, notes: [DisplayText], json: Bool) -> Int32 {
    switch error.kind {
    case .outputClosed:
      return 0
    case .cancelled:
      for note in notes { Diagnostics.note(note) }
      return Signals.exitCode
    default:
      break
    }
    var line = DisplayText(escaping: error.description)
    if let hint = error.hint { line += "; " + hint.advice }
    Diagnostics.error(line)
    for note in notes { Diagnostics.note(note) }
    if json {
      // Kodo's codes are its HTTP statuses (612, 631); OSS names its own (NoSuchKey).
      writeJSON(
        exit: error.exitCode, message: line,
        code: error.serviceCode ?? error.status.map { String($0) }, requestID: error.requestID)
    }
    return error.exitCode
  }

  /// `{"type":"error","exit":N,"message":"…","code":"…","requestId":"…"}` on stderr.
  static func writeJSON(exit: Int32, message: DisplayText, code: String?, requestID: String?) {
    var line = JSONLine()
    line.string("type", "error")
    line.int("exit", Int64(exit))
    line.string("message", message.text)
    line.string("code", code)
    line.string("requestId", requestID)
    FileDescriptorWriter.writeAll(line.finish(), to: Runtime.current.standardError)
  }

  /// Whether `--json` is among the options (anywhere before a `--`).
  static func wantsJSON(_ arguments: [String]) -> Bool {
    arguments.prefix { $0 != "--" }.contains("--json")
  }
}
