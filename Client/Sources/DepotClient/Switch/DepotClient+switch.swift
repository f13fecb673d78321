import DepotFiles
import Foundation

extension DepotClient {
    var journalFile: URL { directory.appendingPathComponent(OwnFile.journal.rawValue) }
    static let readLock = ReleaseSwitch.readLock

    /// Runs `body` while no sync is switching releases: the folder then holds exactly the
    /// release passed (`nil` before the first sync). A switch a killed sync left half done is
    /// finished first.
    public func withCurrentRelease<T>(_ body: (HeldRelease?) throws -> T) throws -> T {
        try context.finishInterruptedSwitch()
        let lock = try folder.with { try FileLock.acquire(Self.readLock, in: $0, exclusive: false) }
        defer { lock?.unlock() }
        return try body(SyncState.load(from: folder).release)
    }

    /// The release the folder holds, as its state file says.
    public var currentRelease: HeldRelease? { SyncState.load(from: folder).release }

    /// Writes `journal` and carries it out (``ReleaseSwitch/switchTo(_:keepingPrevious:)``).
    func switchRelease(_ journal: ReleaseJournal) throws {
        try context.releaseSwitch.switchTo(journal)
    }
}

extension SyncContext {
    /// Carries out the journal a switch left, if any (``ReleaseSwitch/finishInterrupted()``).
    func finishInterruptedSwitch() throws {
        try releaseSwitch.finishInterrupted()
    }
}
