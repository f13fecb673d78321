import DepotAPI

/// The commit a publish sends, from the tree's files and what the last publish of that tree
/// left (``PublishIndex``). Pure, so it is tested as a table.
///
/// When the index knows the release the channel is on, the commit lists only the paths whose
/// content differs from it (and, for `--replace`, the paths to take out), with that release as
/// its `base`: the server refuses it (409) if the channel moved since, and the publish sends
/// the full commit instead. The full commit lists every file: the channel's release is then the
/// same either way, but the request, and the server's work, follow the change and not the tree.
public struct CommitPlan: Sendable, Equatable {
    /// The request to send.
    public var request: CommitRequest
    /// Whether `request` is relative to the release the index names.
    public var isIncremental: Bool

    /// - Parameters:
    ///   - files: Every file of the tree, by path in the release, with its SHA-256.
    ///   - deletions: Paths named with `--delete`.
    ///   - replace: `--replace`: the release must hold exactly `files`.
    ///   - index: What the last publish of this tree to this channel left; `nil` or without a
    ///     release for none.
    public init(channel: String, files: [(path: String, sha256: String)], deletions: [String], replace: Bool, index: PublishIndex?) {
        if let index, let release = index.release, !replace || release.isComplete {
            let changed = files.filter { index.entries[$0.path]?.sha256 != $0.sha256 }
            var dropped: [String] = []
            if replace {
                let local = Set(files.map(\.path))
                dropped = index.entries.keys.filter { !local.contains($0) }.sorted()
            }
            request = CommitRequest(
                channel: channel,
                files: changed.map { .init(path: $0.path, sha256: $0.sha256) },
                delete: deletions + dropped.filter { !deletions.contains($0) },
                replace: false,
                base: release.id
            )
            isIncremental = true
        } else {
            request = CommitRequest(
                channel: channel,
                files: files.map { .init(path: $0.path, sha256: $0.sha256) },
                delete: deletions,
                replace: replace
            )
            isIncremental = false
        }
    }

    /// The index after the server accepted ``request`` and left the channel on the release
    /// `releaseID`: every path of `files` with its content and source, the paths of the
    /// release before kept (when incremental) less those deleted. Complete when the release
    /// holds exactly what the index lists: after a `--replace`, or an incremental commit on a
    /// complete one.
    public func indexAfterCommit(
        files: [TreeDigests.Digest],
        previous: PublishIndex?,
        releaseID: String
    ) -> PublishIndex {
        var entries = isIncremental ? previous?.entries ?? [:] : [:]
        for path in request.delete ?? [] { entries[path] = nil }
        for file in files {
            let entry = PublishIndex.Entry(sha256: file.sha256, source: file.source)
            // Written only when it differs: an unchanged tree leaves the previous index's
            // storage shared, neither copied nor compared entry by entry.
            if entries[file.file.logicalPath] != entry { entries[file.file.logicalPath] = entry }
        }
        let complete = (request.replace ?? false) || (isIncremental && previous?.release?.isComplete == true)
        return PublishIndex(release: .init(id: releaseID, isComplete: complete), entries: entries)
    }
}
