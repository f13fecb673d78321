import DepotFiles
import DepotManifest
import Foundation

/// What ``DepotClient/apply()`` checks again before it applies a staged release: time has
/// passed since ``DepotClient/download()``, a power cut may have fallen in between, and the app
/// may trust other keys now. What was verified when it was downloaded is verified again when it
/// is applied.
extension SyncContext {
    /// Checks `staged`, the record of `release`, against what is true now: its channel document
    /// (signature against the trust configured now, expiry, the channel's serial floor, with
    /// the rules a sync uses, ``ChannelCheck``), and every staged file (hashed again: its
    /// SHA-256, which names it, is the one the signed release lists). Returns the record with
    /// the release judged as it is now.
    ///
    /// - Throws: ``SyncError`` (`.untrusted` or `.corrupt` for the document, `.notStaged` for a
    ///   file that is gone or damaged) after discarding the staged download
    ///   (``discardStaged(_:)``): nothing is applied, and a download is needed.
    func checkStaged(_ staged: StagedRelease, release: HeldRelease) throws -> StagedRelease {
        var staged = staged
        do {
            guard let document = staged.journal.state.channel else {
                throw SyncError(.notStaged, "the record of release \(release.number) has no channel document")
            }
            let trust = try trust()
            let floor = SyncState.load(from: folder).floor(of: release.channel)
            let signature = try ChannelCheck.check(document, channel: release.channel, trust: trust, now: now(), lastAccepted: floor)
            guard ChannelCheck.releases(namedBy: document).contains(release.id) else {
                throw SyncError(.corrupt, "the channel document staged does not name release \(release.number)")
            }
            var judged = release
            judged.signature = signature
            judged.signers = ChannelCheck.signers(of: document, under: trust).map { $0.sorted() }
            staged.journal.state.hold(judged)
        } catch let error as SyncError {
            try? discardStaged(staged)
            throw SyncError(error.code, "release \(release.number), downloaded before, is not applied: \(error.message); download again")
        }
        try checkStagedFiles(staged, release: release)
        return staged
    }

    /// Hashes every staged file `staged` moves into place (each once).
    ///
    /// - Throws: ``SyncError`` `.notStaged` after discarding the staged download when one is
    ///   gone, or its bytes are not the release's.
    private func checkStagedFiles(_ staged: StagedRelease, release: HeldRelease) throws {
        let staging = StagingFolder(try folder.open())
        var checked = Set<String>()
        for move in staged.journal.moves where checked.insert(move.staged).inserted {
            let digest = try staging.currentDigest(of: move.staged)
            guard digest != move.staged else { continue }
            try? discardStaged(staged)
            throw SyncError(
                .notStaged,
                digest == nil
                    ? "\(move.path) of release \(release.number) is no longer staged: download again"
                    : "\(move.path) of release \(release.number) is damaged in staging (a power cut?): download again"
            )
        }
    }

    /// Removes a staged download: its staged files (through the folder, ``StagingFolder``) and
    /// then its record; with release folders its tree goes with the next collection. A download
    /// dropped is removed, not forgotten: a channel that keeps moving cannot fill
    /// `.depot/staging` (issue 57, defect 25). `nil`, or a damaged record: everything staged goes.
    func discardStaged(_ staged: StagedRelease?) throws {
        let staging = StagingFolder(try folder.open())
        // A record whose moves name no staged file (``ReleaseJournal/problem``) names nothing to remove by name.
        if let staged, staged.journal.problem == nil {
            for sha256 in Set(staged.journal.moves.map(\.staged)) { try staging.remove(sha256) }
        } else {
            try folderCall { try staging.folder.removeContents(of: StagingFolder.path) }
        }
        try folder.remove(.staged)
        collectTrees()
    }

    /// Makes the files `staged` names durable, then writes it (durably): a power cut after the
    /// record is written finds every file it names whole. On Linux one `syncfs(2)`
    /// (``Durability/synchronize(_:in:)``).
    func keepStaged(_ staged: StagedRelease) throws {
        let staging = StagingFolder(try folder.open())
        try folderCall { try Durability.synchronize(Set(staged.journal.moves.map(\.staged)).map { staging.journaled($0) }, in: staging.folder) }
        try folder.replace(.staged) { try staged.encode(into: &$0) }
    }
}
