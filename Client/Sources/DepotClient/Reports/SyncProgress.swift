import DepotConcurrency

/// Progress of a download or sync, the one shape every caller gets: the bytes done against the
/// bytes the plan expects (``UpdatePlan/expectedBytes``, known before the first byte), the files
/// staged against the files to fetch, and the file whose bytes arrived last with its own bytes.
public struct SyncProgress: Sendable, Equatable {
    /// Bytes received so far, every file together.
    public var bytesDone: Int64
    /// The bytes the plan expects the download to transfer.
    public var bytesExpected: Int64
    /// The file whose bytes arrived last, or that was staged last; `nil` before the first.
    public var file: String?
    /// Bytes of ``file`` received so far, of ``fileBytesExpected``: the transfer of its current
    /// way (a patch, its blocks, a compressed or whole download). 0 before the first file.
    public var fileBytesDone: Int64
    /// The bytes the transfer of ``file`` is expected to bring; 0 before the first file.
    public var fileBytesExpected: Int64
    /// Files staged (fetched and verified, or failed) so far, of ``filesTotal``.
    public var filesDone: Int
    /// The files the download fetches (new or changed): 0 when the release changes none.
    public var filesTotal: Int

    public init(
        bytesDone: Int64,
        bytesExpected: Int64,
        file: String? = nil,
        fileBytesDone: Int64 = 0,
        fileBytesExpected: Int64 = 0,
        filesDone: Int = 0,
        filesTotal: Int = 0
    ) {
        self.bytesDone = bytesDone
        self.bytesExpected = bytesExpected
        self.file = file
        self.fileBytesDone = fileBytesDone
        self.fileBytesExpected = fileBytesExpected
        self.filesDone = filesDone
        self.filesTotal = filesTotal
    }

    /// How far along, in 0...1, for a progress bar: the bytes done of the bytes expected; by
    /// files when no bytes are expected (every file staged already, or found in place); 1 when
    /// nothing is to be done.
    public var fractionDone: Double {
        if bytesExpected > 0 { return min(1, Double(bytesDone) / Double(bytesExpected)) }
        return filesTotal > 0 ? min(1, Double(filesDone) / Double(filesTotal)) : 1
    }
}

/// Progress of one file's transfer, as the stager sees it: bytes of `path` so far, of
/// `bytesExpected` (``FileStager``); the sink adds it up into a ``SyncProgress``.
struct FileProgress: Sendable {
    let path: String
    let bytesReceived: Int64
    let bytesExpected: Int64
}

/// What a sync reports its ``SyncProgress`` to, if anything.
struct ProgressSink: Sendable {
    var overall: (@Sendable (SyncProgress) -> Void)?

    /// What the stager calls: each file's bytes (``received``), and each file staged or failed
    /// (``staged``).
    struct Stager: Sendable {
        let received: @Sendable (FileProgress) -> Void
        let staged: @Sendable (String) -> Void
    }

    /// The stager's sink for a download expected to transfer `expected` bytes in `files` files:
    /// the first ``SyncProgress`` goes out now, and each file's progress adds its new bytes to
    /// the whole. `nil` when no one listens.
    func starting(expected: Int64, files: Int) -> Stager? {
        guard let overall else { return nil }
        let progress = SyncProgress(bytesDone: 0, bytesExpected: expected, filesTotal: files)
        overall(progress)
        // Each file's progress is its running total: only what is new since its last report
        // counts (a way that fell back to the next starts its file again from 0). Told under
        // the lock, so that the bytes done never go back.
        let seen = Locked<(progress: SyncProgress, last: [String: Int64])>((progress, [:]))
        return Stager(
            received: { file in
                seen.withLock { seen in
                    let last = seen.last[file.path] ?? 0
                    seen.progress.bytesDone += file.bytesReceived >= last ? file.bytesReceived - last : file.bytesReceived
                    seen.last[file.path] = file.bytesReceived
                    seen.progress.file = file.path
                    seen.progress.fileBytesDone = file.bytesReceived
                    seen.progress.fileBytesExpected = file.bytesExpected
                    overall(seen.progress)
                }
            },
            staged: { path in
                seen.withLock { seen in
                    seen.last[path] = nil
                    seen.progress.filesDone += 1
                    if seen.progress.file != path {
                        seen.progress.file = path
                        (seen.progress.fileBytesDone, seen.progress.fileBytesExpected) = (0, 0)
                    }
                    overall(seen.progress)
                }
            }
        )
    }
}
