import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads one immutable URL into a partial file, resuming what an earlier attempt left.
///
/// With `N` bytes already in the partial file it sends `Range: bytes=N-` and
/// `If-Range: <strong ETag>` (RFC 9110 §13.1.5). A 206 appends; a 200 means the server chose to
/// send everything (the content changed, or it ignores ranges), so the file restarts cleanly.
/// If the transfer breaks, the bytes received so far stay for the next attempt.
///
/// The ETag is the one the server sent with the bytes (kept beside the partial file): Depot's is
/// the content's SHA-256, a static mirror's is its own (nginx: modification time and size; an
/// object store: an MD5), so a download resumes on any server that sent its start, and on
/// another one that gives these bytes the same ETag.
struct BlobDownload {
    let url: URL
    /// The strong ETag assumed when the server sent none with the partial file's start:
    /// Depot's.
    let entityTag: String
    /// The length the release promises.
    let expectedLength: Int64
    let partialFile: URL

    enum Outcome {
        /// Everything came in one 200.
        case full
        /// The earlier partial file was completed by a 206.
        case resumed
        /// The partial file was already complete; nothing was requested.
        case alreadyComplete
    }

    /// Downloads; returns how it went and how many bytes crossed the network.
    func run(session: TransferSession, progress: @escaping @Sendable (Int64) -> Void) async throws -> (Outcome, Int64) {
        let handle = try Durability.open(partialFile, truncating: false)
        defer { try? handle.close() }
        let existing = Int64(try handle.seekToEnd())
        if existing == expectedLength { return (.alreadyComplete, 0) }
        var request = URLRequest(url: url)
        // Never answer from a local HTTP cache: documents and blobs are validated by Depot itself.
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        let resumeFrom = existing < expectedLength ? existing : 0
        if resumeFrom > 0 {
            let sent = (try? Data(contentsOf: entityTagFile)).map { String(decoding: $0, as: UTF8.self) }
            request.setValue("bytes=\(resumeFrom)-", forHTTPHeaderField: "Range")
            request.setValue(sent ?? entityTag, forHTTPHeaderField: "If-Range")
        }
        let receiver = DownloadReceiver(
            handle: handle,
            resumeFrom: resumeFrom,
            expectedLength: expectedLength,
            entityTagFile: entityTagFile,
            progress: progress
        )
        // Not fsynced: what a crash loses is downloaded again, and the whole is checked anyway.
        let result = try await receiver.download(request, session: session)
        return (result.resumed ? .resumed : .full, result.received)
    }

    /// Removes the partial file, and the ETag kept beside it.
    func discard() {
        try? FileManager.default.removeItem(at: partialFile)
        try? FileManager.default.removeItem(at: entityTagFile)
    }

    /// Beside the partial file: the strong ETag the server sent with its first bytes.
    var entityTagFile: URL { partialFile.appendingPathExtension("etag") }
}

/// The URLSession delegate of one download: checks the response, then writes the body as it
/// arrives, so memory stays bounded whatever the size.
final class DownloadReceiver: DataTaskDelegate, @unchecked Sendable {
    // Touched only on the session's serial delegate queue, then read once the task completed.
    private let handle: FileHandle
    private let resumeFrom: Int64
    private let expectedLength: Int64
    private let entityTagFile: URL
    private let progress: @Sendable (Int64) -> Void
    private var received: Int64 = 0
    private var resumed = false

    init(handle: FileHandle, resumeFrom: Int64, expectedLength: Int64, entityTagFile: URL, progress: @escaping @Sendable (Int64) -> Void) {
        self.handle = handle
        self.resumeFrom = resumeFrom
        self.expectedLength = expectedLength
        self.entityTagFile = entityTagFile
        self.progress = progress
    }

    /// Downloads; returns whether the partial file was resumed, and the bytes received.
    func download(_ request: URLRequest, session: TransferSession) async throws -> (resumed: Bool, received: Int64) {
        try await run(request, session: session)
        return (resumed, received)
    }

    override func accept(_ response: HTTPURLResponse, task: URLSessionDataTask) throws {
        switch response.statusCode {
        case 206 where resumeFrom > 0:
            let contentRange = response.value(forHTTPHeaderField: "Content-Range") ?? ""
            guard contentRange.hasPrefix("bytes \(resumeFrom)-"), contentRange.hasSuffix("/\(expectedLength)") else {
                throw SyncError(.server, "the server resumed at the wrong place (\(contentRange))")
            }
            try handle.seekToEnd()
            resumed = true
        case 200:
            try handle.truncate(atOffset: 0)
            // Kept for a resume; a weak ETag cannot be used by If-Range (RFC 9110 §13.1.5).
            if let tag = response.value(forHTTPHeaderField: "ETag"), tag.hasPrefix("\"") {
                try Durability.write(Data(tag.utf8), to: entityTagFile)
            } else {
                try? FileManager.default.removeItem(at: entityTagFile)
            }
        default:
            throw SyncError(.server, "\(task.originalRequest?.url?.path ?? "") answered \(response.statusCode)")
        }
    }

    override func receive(_ data: Data, task: URLSessionDataTask) throws {
        // Never more than the release promised: a server that sends more is stopped here,
        // before the surplus reaches the disk.
        guard (resumed ? resumeFrom : 0) + received + Int64(data.count) <= expectedLength else {
            throw SyncError(
                .corrupt,
                "\(task.originalRequest?.url?.path ?? "the download") is longer than the \(expectedLength) bytes the release says"
            )
        }
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw SyncError(.io, "cannot write the download: \(error)")
        }
        received += Int64(data.count)
        progress(Int64(data.count))
    }

    override func networkFailure(_ error: any Error, task: URLSessionTask) -> SyncError {
        SyncError(.network, "the download broke after \(received) bytes: \(error.localizedDescription)")
    }
}
