import ArgumentParser
import KodoCore
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
    }
  }
}

/// Runs a command body: prints one `kodo: error:` line for a failure and exits with the
/// contract's code. A closed stdout ends quietly with 0.
func runReportingErrors(_ body: () async throws -> Void) async throws {
  do {
    try await body()
  } catch let error as StorageError {
    if error.kind == .outputClosed { throw ExitCode(0) }
    if error.kind == .cancelled {
      throw ExitCode(Signals.exitCode)
    }
    Diagnostics.error(error.description)
    throw ExitCode(error.exitCode)
  } catch let error as ExitCode {
    throw error
  } catch let error as CleanExit {
    throw error
  } catch let error as ValidationError {
    throw error
  } catch is CancellationError {
    throw ExitCode(Signals.exitCode)
  } catch {
    Diagnostics.error("unexpected failure: \(error)")
    throw ExitCode(1)
  }
}
