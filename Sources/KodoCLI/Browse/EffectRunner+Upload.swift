import Foundation
import KodoBrowse
import StorageCore
import Synchronization

extension EffectRunner {
  /// `u`: uploads through `put`'s code: each file as `put` sends it (`PutUpload`: one request,
  /// or parts with a checkpoint), as many at once as `put -r` runs (`PutSchedule`), a folder's
  /// files found as `put -r` finds them (`PutTreeJobs`, links not followed). Nothing is
  /// printed: progress (with each object uploaded, stat'ed for the view) and the end go out as
  /// messages. A key that exists is refused by the service and reported for the browser to offer
  /// replacing. When cancelled, it stops and sends nothing more: an object is whole or absent;
  /// an upload in parts keeps its checkpoint (the next identical `kodo put`, or `u` again,
  /// resumes it; `kodo put --abort` ends it).
  func upload(id: Int, bucket: String, plan: UploadPlan, replace: Bool) async {
    let started = ContinuousClock.now
    var progress = UploadProgress()
    var summary = UploadSummary()
    func seconds() -> Double { Self.seconds(since: started) }
    let writer: any ObjectWriting
    do throws(StorageError) {
      guard let found = provider as? any ObjectWriting else {
        throw StorageError(.rejected, "this provider cannot upload objects")
      }
      writer = found
    } catch {
      summary.failure(error.description)
      return send(.uploadFinished(id: id, summary))
    }
    let settings = PutSettings(
      kind: kind, overwrite: replace,
      stateDirectory: UploadCheckpoints.directory(environment))
    var jobs: [PutItem] = []
    for item in Self.items(bucket: bucket, plan: plan) {
      if Task.isCancelled { return }
      switch item {
      case .job(var job):
        // Its size found once (a file the user named has not been looked at yet).
        job.size = job.sourceSize
        jobs.append(.job(job))
        progress.total += job.size ?? 0
      case .skipped(let text):
        summary.skipped += 1
        if summary.firstSkip == nil { summary.firstSkip = text.text }
      case .failed(let error): summary.failure(error.description)
      }
    }
    progress.listed = jobs.count
    progress.seconds = seconds()
    send(.uploadProgress(id: id, progress))
    // The files done, for a file in parts to add the parts the service holds to (it runs
    // alone, so nothing else changes meanwhile).
    let done = Mutex(progress)
    let noFollow = Self.noFollow(plan)
    try? await PutSchedule.run(
      jobs, settings: settings,
      start: { [provider, send] (job: PutJob, _: Int64?) -> @Sendable () async -> UploadResult in
        var made = PutUpload(
          writer: writer, settings: settings, job: job, progress: nil, noFollow: noFollow)
        made.partsHeld = { held in
          var now = done.withLock { $0 }
          now.bytes += held
          now.seconds = Self.seconds(since: started)
          send(.uploadProgress(id: id, now))
        }
        let upload = made
        return {
          do throws(StorageError) {
            let outcome = try await upload.run()
            guard case .uploaded(_, let size, _) = outcome else { return .skipped }
            // What the service now holds, for the view.
            let details = try? await provider.stat(bucket: bucket, key: job.location.key)
            return .uploaded(size: size, details?.object)
          } catch {
            return .failed(job, error)
          }
        }
      },
      note: { _ in },
      report: { (result: UploadResult) in
        if Task.isCancelled { return }
        switch result {
        case .uploaded(let size, let object):
          summary.uploaded += 1
          progress.bytes += size
          progress.uploaded = object.map { [$0] } ?? []
        case .skipped:
          break
        case .failed(let job, let error):
          if error.kind == .exists {
            summary.existing.append(UploadFile(source: job.source, key: job.location.key))
          } else {
            summary.failure(error.description)
          }
        }
        progress.done += 1
        progress.seconds = seconds()
        send(.uploadProgress(id: id, progress))
        progress.uploaded = []
        done.withLock { $0 = progress }
      })
    if Task.isCancelled { return }
    send(.uploadFinished(id: id, summary))
  }

  /// How one file's upload ended.
  private enum UploadResult: Sendable {
    case uploaded(size: Int64, ObjectEntry?)
    case skipped
    case failed(PutJob, StorageError)
  }

  /// Seconds since `start`.
  private static func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  }

  /// The files a plan names, with their keys.
  private static func items(bucket: String, plan: UploadPlan) -> [PutItem] {
    switch plan {
    case .files(let files):
      return files.map {
        .job(PutJob(source: $0.source, location: ObjectLocation(bucket: bucket, key: $0.key)))
      }
    case .path(let path, let folder):
      let name = String(KeySegments.lastSegment(of: KeySegments.droppingTrailingSlashes(path)))
      var status = stat()
      guard stat(path, &status) == 0 else {
        return [
          .failed(
            StorageError(
              errno == ENOENT ? .notFound : .localIO,
              "cannot read \(DisplayText(quoting: path)): \(String(cString: strerror(errno)))"))
        ]
      }
      guard status.st_mode & S_IFMT == S_IFDIR else {
        return [
          .job(PutJob(source: path, location: ObjectLocation(bucket: bucket, key: folder + name)))
        ]
      }
      // As `put -r DIR BUCKET/FOLDER/NAME/`: the folder's own name is a subfolder here.
      let patterns: KeyPatterns
      do throws(StorageError) {
        patterns = try KeyPatterns(include: [], exclude: [])
      } catch {
        return [.failed(error)]
      }
      return Array(
        PutTreeJobs(
          roots: [path], bucket: bucket, folder: folder + name + "/", patterns: patterns,
          followLinks: false))
    }
  }

  /// A folder's files are opened without following a link (as `put -r` does); a file the user
  /// named is followed.
  private static func noFollow(_ plan: UploadPlan) -> Bool {
    if case .path(let path, _) = plan {
      var status = stat()
      return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
    return true
  }
}
