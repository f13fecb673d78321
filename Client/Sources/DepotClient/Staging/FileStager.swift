import Crypto
import DepotDelta
import DepotHTTP
import DepotManifest
import DepotPolicy
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches the files of a release into `.depot/staging/{sha256}`, each by what its plan says
/// (``ReleasePlan/Fetch/actions(stagedIntact:local:inMemoryLimit:)``): a patch of the file
/// held (listed, or made on request), the blocks the local copy lacks, a download into memory,
/// or a resumable stream to a partial file; every one checked against its entry
/// (``StagedContent``) before it is staged.
struct FileStager: Sendable {
    /// The server the release's URLs are below.
    let server: URL
    /// The sync folder's staging, and its partial files (``StagingFolder/partialFile(_:)``).
    let staging: StagingFolder
    /// The folder's file for a release path (``LocalPath/file(for:in:folder:)``).
    let localFile: @Sendable (String) throws -> FolderFile
    /// Files fetched at once.
    let parallelDownloads: Int
    let session: TransferSession
    /// Told each file's bytes and each file staged; `nil` when no one listens.
    let progress: ProgressSink.Stager?
    /// What this sync learnt of the local copies, shared with its plan (``UpdatePlan``).
    var localCopies = LocalCopies()
    /// The new release's pages the fetches come from, by SHA-256: their packs carry the small
    /// files (``PackFetch``).
    var pages: [(sha256: String, page: ReleasePage)] = []

    /// One file: tries each of ``ReleasePlan/Fetch/actions(stagedIntact:local:inMemoryLimit:decoding:)``
    /// in turn until one stages it, counting the bytes of every try.
    func stage(_ fetch: ReleasePlan.Fetch) async -> SyncReport.File {
        let entry = fetch.entry
        defer { progress?.staged(entry.path) }
        var file = SyncReport.File(path: entry.path, outcome: .staged, bytesTransferred: 0, size: entry.size)
        let staged: FolderFile
        do {
            staged = try staging.fileToWrite(entry.sha256)
        } catch {
            file.outcome = .failed
            file.error = "\(error)"
            file.code = SyncError.Code(of: error)
            return file
        }
        // Staged by a sync that stopped before its switch, maybe before its writes were durable:
        // checked again, and downloaded again unless intact.
        let stagedIntact = StagedContent.isIntact(staged, for: entry)
        if !stagedIntact { staged.remove() }
        do {
            let local = try localFile(entry.path)
            let actions = fetch.actions(
                stagedIntact: stagedIntact,
                local: localCopies.copy(at: local, held: fetch.held),
                inMemoryLimit: Self.inMemoryLimit,
                decoding: ContentDecoders.decodable
            )
            for (number, action) in actions.enumerated() {
                let received = ByteCounter()
                do {
                    file.outcome = try await run(action, for: fetch, local: local, to: staged, received: received)
                    file.bytesTransferred += received.total
                    switch action {
                    case .download(let whole), .stream(let whole): file.encoding = whole.coding == .identity ? nil : whole.coding.rawValue
                    default: break
                    }
                    return file
                } catch  where number < actions.count - 1 {
                    // Any failure but the last way's falls back to the next; its bytes count.
                    file.bytesTransferred += received.total
                }
            }
        } catch {
            file.outcome = .failed
            file.error = "\(error)"
            file.code = SyncError.Code(of: error)
        }
        return file
    }

    /// Rebuilds `entry`'s content at `output` from the blocks `local` holds and those it lacks
    /// (``BlockFetch``), within `budget`: matched once a sync (``LocalCopies``), and a block
    /// index the plan fetched is this file's cost all the same.
    private func rebuild(_ entry: ReleaseEntry, from local: FolderFile, budget: Int64, to output: FolderFile, received: ByteCounter) async throws {
        let blocks = BlockFetch(server: server, session: session, width: parallelDownloads)
        let (matched, isNew) = try await localCopies.match(entry, at: local) {
            try await blocks.match(entry, from: local, budget: budget, received: received)
        }
        if !isNew { _ = received.add(matched.indexBytes) }
        try await blocks.rebuild(entry, from: matched, to: output, received: received)
    }

    /// Carries out one action, counting what it receives in `received`; returns the outcome.
    private func run(
        _ action: ReleasePlan.Fetch.Action,
        for fetch: ReleasePlan.Fetch,
        local: FolderFile,
        to staged: FolderFile,
        received: ByteCounter
    ) async throws -> SyncReport.Outcome {
        let entry = fetch.entry
        switch action {
        case .alreadyStaged:
            return .staged
        case .empty:
            try StagedContent.stage(Data(), coding: .identity, entry: entry, to: staged)
            return .full
        case .patch(let patch):
            try await fetchPatch(patch, for: entry, base: local, to: staged, received: received)
            return .delta
        case .requestedPatch:
            guard let held = fetch.held else { throw SyncError(.corrupt, "no content held to patch") }
            try await fetchRequestedPatch(from: held, for: entry, base: local, to: staged, received: received)
            return .delta
        case .blocks(let restoring):
            let rebuilt = staged.appending(".blocks")
            defer { rebuilt.remove() }
            if let patch = restoring, let held = fetch.held {
                try await rebuild(held, from: local, budget: Self.wholeLength(of: entry) - patch.size, to: rebuilt, received: received)
                guard let (sha256, _) = try? StagedContent.digest(of: rebuilt), sha256 == held.sha256 else {
                    throw SyncError(.corrupt, "the blocks did not rebuild the version held of \(entry.path)")
                }
                try await fetchPatch(patch, for: entry, base: rebuilt, to: staged, received: received)
            } else {
                try await rebuild(entry, from: local, budget: Self.wholeLength(of: entry), to: rebuilt, received: received)
                try stageChecked(rebuilt, entry: entry, to: staged)
            }
            return .blocks
        case .download(let whole):
            let (outcome, transferred) = try await downloadInMemory(entry, whole, to: staged)
            _ = received.add(transferred)
            return outcome
        case .stream(let whole):
            let (outcome, transferred) = try await stream(entry, whole, to: staged)
            _ = received.add(transferred)
            return outcome
        }
    }

    /// The bytes of `entry`'s whole download here: what any other way of fetching it must cost
    /// less than.
    static func wholeLength(of entry: ReleaseEntry) -> Int64 {
        entry.download(decoding: ContentDecoders.decodable).size
    }

    /// Downloads `whole`, `entry`'s whole download in one coding, to a partial file, resumed from
    /// what an earlier sync left there, verifies it and leaves it at `staged`.
    func stream(_ entry: ReleaseEntry, _ whole: ReleaseEntry.Download, to staged: FolderFile) async throws -> (SyncReport.Outcome, Int64) {
        let download = try blobDownload(try whole.object.url, sha256: whole.sha256, size: whole.size, partialName: Self.partialName(of: whole))
        let verified = staged.appending(".verifying")
        // A download that does not match the release is worthless. One that resumed (or was
        // complete already) may owe that to its start, another server's wrong bytes under the
        // right ETag: it is fetched again whole, here, once; otherwise a source that poisons
        // partial files would fail the file on every server, at every sync.
        let attempts = try await PartialFile.fetchChecked(
            download.partialFile,
            attempt: { try await run(download, for: entry.path) },
            resumed: { $0.0 != .full },
            check: {
                do {
                    try StagedContent.verifyAndStage(download.partialFile, coding: whole.coding, entry: entry, to: verified)
                } catch {
                    verified.remove()
                    throw error
                }
            }
        )
        let outcome = attempts[attempts.count - 1].0
        let transferred = attempts.reduce(0) { $0 + $1.1 }
        try StagedContent.setModificationDate(of: verified, to: entry)
        try verified.rename(to: staged)
        download.discard()
        switch outcome {
        case .resumed: return (.resumed, transferred)
        case .full, .alreadyComplete: return (SyncReport.Outcome(whole.coding), transferred)
        }
    }

    /// Files whose download is at most this many bytes are fetched into memory and written once:
    /// no partial file, which a download this small would not resume anyway.
    static let inMemoryLimit: Int64 = 256 * 1024

    /// Downloads `whole`, a small `entry`'s whole download, into memory, checks it and writes
    /// it at `staged`.
    func downloadInMemory(_ entry: ReleaseEntry, _ whole: ReleaseEntry.Download, to staged: FolderFile) async throws -> (SyncReport.Outcome, Int64) {
        let length = whole.size
        var request = URLRequest.bytes(of: try OriginPolicy.url(try whole.object.url, below: server))
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        let http: HTTPURLResponse
        let data: Data
        do {
            (http, data) = try await BoundedFetch.run(request, session: session, maximumBytes: Int(length))
        } catch let error as SyncError where error.code == .corrupt {
            throw SyncError(.corrupt, "\(request.url?.path ?? "the download") is longer than the \(length) bytes the release says")
        }
        guard http.statusCode == 200 else { throw SyncError(.server, "\(request.url?.redacted ?? "") answered \(http.statusCode)") }
        progress?.received(FileProgress(path: entry.path, bytesReceived: Int64(data.count), bytesExpected: length))
        try StagedContent.stage(data, coding: whole.coding, entry: entry, to: staged)
        return (SyncReport.Outcome(whole.coding), Int64(data.count))
    }

    /// The name in `.depot/partial/` of a whole download under way: its bytes' SHA-256, and
    /// the variant's suffix (`.gz`, `.br`, `.zst`) for an encoded one.
    static func partialName(of whole: ReleaseEntry.Download) -> String {
        let suffix: String =
            switch whole.coding {
            case .identity: ""
            case .gzip: ".gz"
            case .br: ".br"
            case .zstd: ".zst"
            }
        return "\(whole.sha256)\(suffix).partial"
    }

    /// A resumable download of the immutable URL `url`, whose bytes have this SHA-256 and size.
    func blobDownload(_ url: String, sha256: String, size: Int64, partialName: String) throws -> BlobDownload {
        BlobDownload(
            url: try OriginPolicy.url(url, below: server),
            entityTag: "\"\(sha256)\"",
            expectedLength: size,
            partialFile: staging.partialFile(partialName)
        )
    }

    /// Runs `download`, reporting progress under `path`.
    func run(_ download: BlobDownload, for path: String) async throws -> (BlobDownload.Outcome, Int64) {
        let counter = ByteCounter()
        let expected = download.expectedLength
        return try await download.run(session: session) { count in
            progress?.received(FileProgress(path: path, bytesReceived: counter.add(count), bytesExpected: expected))
        }
    }
}
