import DepotConcurrency

/// Progress of a whole download, as an app shows it: the bytes done against the bytes the plan
/// expects (``UpdatePlan/expectedBytes``, known before the first byte), and the file in flight.
public struct SyncProgress: Sendable, Equatable {
    /// Bytes received so far, every file together.
    public var bytesDone: Int64
    /// The bytes the plan expects the download to transfer.
    public var bytesExpected: Int64
    /// The file whose bytes arrived last; `nil` before the first.
    public var file: String?
}

/// What a sync reports progress to: each file's download (``DepotClient/Progress``), and the
/// whole (``SyncProgress``), either or both.
struct ProgressSink: Sendable {
    var file: (@Sendable (DepotClient.Progress) -> Void)?
    var overall: (@Sendable (SyncProgress) -> Void)?

    /// The sink of a download expected to transfer `expected` bytes: the first ``SyncProgress``
    /// goes out now, and each file's progress adds its new bytes to the whole.
    func starting(expected: Int64) -> (@Sendable (DepotClient.Progress) -> Void)? {
        guard let overall else { return file }
        let file = file
        overall(SyncProgress(bytesDone: 0, bytesExpected: expected, file: nil))
        // Each file's progress is its running total: only what is new since its last report
        // counts (a way that fell back to the next starts its file again from 0).
        let seen = Locked<(done: Int64, last: [String: Int64])>((0, [:]))
        return { progress in
            file?(progress)
            let done = seen.withLock { seen in
                let last = seen.last[progress.path] ?? 0
                seen.done += progress.bytesReceived >= last ? progress.bytesReceived - last : progress.bytesReceived
                seen.last[progress.path] = progress.bytesReceived
                return seen.done
            }
            overall(SyncProgress(bytesDone: done, bytesExpected: expected, file: progress.path))
        }
    }
}
