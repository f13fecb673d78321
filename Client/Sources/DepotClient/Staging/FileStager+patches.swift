import Crypto
import DepotDelta
import DepotHTTP
import DepotManifest
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A file made from the content held and a patch: listed by the release, or made by the server
/// when asked; the result checked against its entry before it is staged.
extension FileStager {
    /// Downloads `patch` (resumable like any blob), checks its SHA-256, applies it to the file
    /// at `base`, checks the result and leaves it at `staged`.
    func fetchPatch(_ patch: ReleaseEntry.Patch, for entry: ReleaseEntry, base: FolderFile, to staged: FolderFile, received: ByteCounter) async throws
    {
        let download = try blobDownload(
            try entry.patchURL(patch),
            sha256: patch.sha256,
            size: patch.size,
            partialName: "\(patch.sha256).delta.partial"
        )
        defer { download.discard() }
        let (_, transferred) = try await run(download, for: entry.path)
        _ = received.add(transferred)
        guard try StagedContent.digest(of: download.partialFile).0 == patch.sha256 else {
            throw SyncError(.corrupt, "the patch for \(entry.path) does not match the release")
        }
        try apply(download.partialFile, to: base, for: entry, staged: staged)
    }

    /// Fetches the patch from `held` that the server makes when first asked
    /// (`/deltas/{held}/{new}`), applies it to the file at `base`, checks the result and leaves
    /// it at `staged`. The release lists no such patch, so only the result is checked, and the
    /// patch may be no larger than the whole file's download.
    func fetchRequestedPatch(
        from held: ReleaseEntry,
        for entry: ReleaseEntry,
        base: FolderFile,
        to staged: FolderFile,
        received: ByteCounter
    ) async throws {
        let path = try TreeObject.delta(from: held.sha256, to: entry.sha256).url
        var request = URLRequest.bytes(of: try OriginPolicy.url(path, below: server))
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        let fetch = BoundedFetch(maximumBytes: Int(entry.wholeLength))
        defer { _ = received.add(fetch.bytesReceived) }
        let (response, data) = try await fetch.fetch(request, session: session, deadline: nil)
        guard response.statusCode == 200 else { throw SyncError(.server, "\(path) answered \(response.statusCode)") }
        let patch = staging.partialFile("\(held.sha256)-\(entry.sha256).delta")
        defer { patch.remove() }
        try patch.write(data)
        try apply(patch, to: base, for: entry, staged: staged)
    }

    /// Applies the patch at `patch` to `base`, checks the result against `entry` and leaves it
    /// at `staged`.
    func apply(_ patch: FolderFile, to base: FolderFile, for entry: ReleaseEntry, staged: FolderFile) throws {
        let patched = staged.appending(".patched")
        defer { patched.remove() }
        try DeltaPatch.apply(base: base, patch: patch, output: patched, maximumSize: Int(entry.size))
        try stageChecked(patched, entry: entry, to: staged)
    }

    /// Checks the file at `file` against `entry` (size and SHA-256) and leaves it at `staged`
    /// with the entry's modification time.
    func stageChecked(_ file: FolderFile, entry: ReleaseEntry, to staged: FolderFile) throws {
        let verified = staged.appending(".verifying")
        defer { verified.remove() }
        try StagedContent.verifyAndStage(file, coding: .identity, entry: entry, to: verified)
        try StagedContent.setModificationDate(of: verified, to: entry)
        try verified.rename(to: staged)
    }
}
