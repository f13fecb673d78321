import Foundation

extension DepotClient {
    /// The release ``download(progress:)`` staged for ``apply()``, read from the folder's own
    /// record (`.depot/staged.json`): no network, no lock, a small file read. `nil` when nothing
    /// is staged, when the record is damaged, or when it no longer fits the folder (applied
    /// already, or downloaded over another release than the folder now holds): in each case
    /// ``apply()`` would have nothing to switch to. A staged file damaged since (a power cut) is
    /// not looked for here: ``apply()`` checks every one.
    public var stagedUpdate: StagedUpdate? {
        guard let bytes = folder.read(.staged), let record = try? JSONDecoder().decode(StagedRelease.self, from: Data(bytes)) else { return nil }
        guard let release = record.journal.state.release, record.journal.problem == nil else { return nil }
        let held = currentRelease?.id
        guard held != release.id, held == record.base else { return nil }
        return StagedUpdate(
            release: release,
            base: record.base,
            bytes: record.bytes,
            stagedAt: record.stagedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        )
    }
}
