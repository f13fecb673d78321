import DepotAPI
import DepotFiles
import Foundation

/// How far a sync goes: ``DepotClient/check()`` stops after the plan,
/// ``DepotClient/download()`` after staging, ``DepotClient/sync(progress:)`` switches too.
enum SyncGoal: Equatable {
    case check, download, apply
}

/// A release downloaded and verified in `.depot/staging/`, waiting for
/// ``DepotClient/apply()``: the switch's journal, and the release it was planned from.
struct StagedRelease: Codable, Equatable {
    /// The release the folder held when it was planned: applied over any other, its removals
    /// and moves would be wrong.
    var base: String?
    var journal: ReleaseJournal
    /// The pages of the release it replaces that changed: dropped from the cache once applied.
    var pagesBefore: [String]
    /// The size of the files it brings (new or changed), in bytes; `nil` in a record from before
    /// it was kept (``StagedUpdate``).
    var bytes: Int64? = nil
    /// When it was staged, in seconds since 1970; `nil` in a record from before it was kept.
    var stagedAt: Int64? = nil

    /// Writes the record as JSON, its journal a part at a time (``ReleaseJournal/encode(into:)``).
    func encode(into stream: inout JSONStream) throws {
        stream.raw("{")
        if let base { try stream.key("base", base) }
        stream.raw("\"journal\":")
        try journal.encode(into: &stream)
        stream.raw(",")
        if let bytes { try stream.key("bytes", bytes) }
        if let stagedAt { try stream.key("stagedAt", stagedAt) }
        try stream.key("pagesBefore", pagesBefore, last: true)
        stream.raw("}")
    }
}

extension SyncContext {
    /// Switches to `staged` (``ReleaseSwitch/switchTo(_:keepingPrevious:)``), then forgets what the release it replaced
    /// needed: its staged record, its cached documents, what is left staged or partly
    /// downloaded. A clean-up that fails does not fail a switch whose release is in place (the
    /// next one cleans up again).
    func switchRelease(to staged: StagedRelease) throws {
        try releaseSwitch.switchTo(staged.journal)
        try? folder.remove(.staged)
        collectTrees()
        if let id = staged.journal.state.release?.id, let release = cache.release(id) {
            cache.forget(releasesOtherThan: id, pages: Set(staged.pagesBefore), keeping: release)
        }
        try? folder.with { folder in
            try folder.removeContents(of: StagingFolder.path)
            try folder.removeContents(of: StagingFolder.partialPath)
        }
    }
}
