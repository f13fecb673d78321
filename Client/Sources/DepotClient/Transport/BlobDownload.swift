import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads one immutable URL into a partial file over URLSession, resuming what an earlier
/// attempt left: the client's transport for Depot's one resumable download (``PartialFile``,
/// which decides the request, the answers it takes and what is written).
///
/// The ETag assumed when none was kept with the partial file is Depot's (the content's
/// SHA-256); a static mirror's is its own (nginx: modification time and size; an object store:
/// an MD5), kept when it sent the file's start, so a download resumes on any server that sent
/// its start, and on another one that gives these bytes the same ETag.
struct BlobDownload {
    let url: URL
    /// The strong ETag assumed when the server sent none with the partial file's start:
    /// Depot's.
    let entityTag: String
    /// The length the release promises.
    let expectedLength: Int64
    /// In `.depot/partial/` of the sync folder.
    let partialFile: FolderFile

    enum Outcome {
        /// Everything came in one 200.
        case full
        /// The earlier partial file was completed by a 206.
        case resumed
        /// The partial file was already complete; nothing was requested.
        case alreadyComplete
    }

    /// Downloads; returns how it went and how many bytes crossed the network. If the transfer
    /// breaks, the bytes received so far stay for the next attempt (not fsynced: what a crash
    /// loses is downloaded again, and the whole is checked anyway).
    func run(session: TransferSession, progress: @escaping @Sendable (Int64) -> Void) async throws -> (Outcome, Int64) {
        let partial = try PartialFile(partialFile, source: url.path, expectedLength: expectedLength)
        if partial.isComplete { return (.alreadyComplete, 0) }
        var request = URLRequest.bytes(of: url)
        // Never answer from a local HTTP cache: documents and blobs are validated by Depot itself.
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        for (name, value) in partial.requestHeaders(assumedTag: entityTag) { request.setValue(value, forHTTPHeaderField: name) }
        try await DownloadReceiver(partial: partial, progress: progress).run(request, session: session)
        return (partial.resumed ? .resumed : .full, partial.received)
    }

    /// Removes the partial file, and the ETag kept beside it.
    func discard() { PartialFile.discard(partialFile) }
}

/// The URLSession delegate of one download: hands the response and each piece of the body to
/// the partial file as they arrive, so memory stays bounded whatever the size.
final class DownloadReceiver: DataTaskDelegate, @unchecked Sendable {
    // Touched only on the session's serial delegate queue, then read once the task completed.
    private let partial: PartialFile
    private let progress: @Sendable (Int64) -> Void

    init(partial: PartialFile, progress: @escaping @Sendable (Int64) -> Void) {
        self.partial = partial
        self.progress = progress
    }

    override func accept(_ response: HTTPURLResponse, task: URLSessionDataTask) throws {
        try partial.begin(
            status: response.statusCode,
            contentRange: response.value(forHTTPHeaderField: "Content-Range"),
            entityTag: response.value(forHTTPHeaderField: "ETag")
        )
    }

    override func receive(_ data: Data, task: URLSessionDataTask) throws {
        try partial.append(data)
        progress(Int64(data.count))
    }

    override func networkFailure(_ error: any Error, task: URLSessionTask) -> SyncError {
        SyncError(.network, "the download broke after \(partial.received) bytes: \(error.localizedDescription)")
    }
}
