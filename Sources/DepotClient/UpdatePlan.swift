import DepotManifest
import Foundation

/// What a sync would do, from its documents alone (``DepotClient/check()``): the release it
/// would switch to, each file that changes and how it would come, the bytes it expects to
/// transfer and the local space it needs. Nothing is downloaded or changed to learn it.
public struct UpdatePlan: Sendable, Equatable, Codable {
    /// The release the folder would hold: the one it holds when ``isUpToDate``.
    public var release: HeldRelease?
    /// Whether the folder holds the release already.
    public var isUpToDate: Bool
    /// Whether the release is critical: the app should apply it at once.
    public var critical: Bool
    /// The oldest app version the release works with, if the channel says.
    public var minimumClientVersion: String?
    /// The files that change, by path.
    public var files: [File]
    /// The paths the release removes.
    public var removals: [String]

    /// One file that changes.
    public struct File: Sendable, Equatable, Codable {
        public var path: String
        /// Its size in the folder.
        public var size: Int64
        /// The way the download would try first (``SyncReport/Outcome``: `.delta`, `.blocks`,
        /// `.gzip`, `.full`, or `.staged` when an earlier download staged it).
        public var way: SyncReport.Outcome
        /// The bytes that way transfers: the listed patch, or the gzip variant or the file
        /// whole. For a patch the server makes on request, or blocks (which the local copy
        /// decides), the whole download is the bound: ``isBound``.
        public var expectedBytes: Int64
        /// Whether ``expectedBytes`` is an upper bound rather than the size listed.
        public var isBound: Bool
    }

    /// The bytes the download is expected to transfer, documents aside.
    public var expectedBytes: Int64 { files.reduce(0) { $0 + $1.expectedBytes } }
    /// The local space the download needs: each changed file is staged whole before the switch.
    public var requiredBytes: Int64 { files.filter { $0.way != .staged }.reduce(0) { $0 + $1.size } }

    /// Up to date at `held`.
    static func upToDate(_ held: HeldRelease?, rollout: RolloutSide?) -> UpdatePlan {
        UpdatePlan(release: held, isUpToDate: true, critical: rollout?.critical ?? false, files: [], removals: [])
    }

    init(
        release: HeldRelease?,
        isUpToDate: Bool,
        critical: Bool,
        minimumClientVersion: String? = nil,
        files: [File],
        removals: [String]
    ) {
        self.release = release
        self.isUpToDate = isUpToDate
        self.critical = critical
        self.minimumClientVersion = minimumClientVersion
        self.files = files
        self.removals = removals
    }

    /// The plan of a sync to `release`, whose way for each file is the first of its actions
    /// (``ReleasePlan/Fetch/actions(stagedIntact:local:inMemoryLimit:)``), judged as the stager
    /// judges it: what is staged intact, and what the folder holds at the path.
    init(
        _ plan: ReleasePlan,
        release: HeldRelease,
        rollout side: RolloutSide,
        document: ChannelDocument,
        staging: StagingFolder,
        localURL: (String) throws -> URL
    ) throws {
        let files = try plan.fetches.map { fetch -> File in
            let entry = fetch.entry
            let staged = staging.file(entry.sha256)
            let stagedIntact = (try? StagedContent.digest(of: staged)).map { $0.0 == entry.sha256 && $0.1 == entry.size } ?? false
            let local = FileStager.localCopy(at: try localURL(entry.path), held: fetch.held)
            let action = fetch.actions(stagedIntact: stagedIntact, local: local, inMemoryLimit: FileStager.inMemoryLimit)[0]
            let (way, bytes, isBound): (SyncReport.Outcome, Int64, Bool) =
                switch action {
                case .alreadyStaged: (.staged, 0, false)
                case .patch(let patch): (.delta, patch.size, false)
                case .requestedPatch: (.delta, entry.wholeLength, true)
                case .blocks: (.blocks, entry.wholeLength, true)
                case .download(let gzip), .stream(let gzip): (gzip ? .gzip : .full, entry.wholeLength, false)
                }
            return File(path: entry.path, size: entry.size, way: way, expectedBytes: bytes, isBound: isBound)
        }
        let minimum: String?
        if side.release == document.release {
            minimum = document.minimumClientVersion
        } else if side.release == document.rollout?.release {
            minimum = document.rollout?.minimumClientVersion
        } else {
            minimum = document.fallbacks?.first { $0.release == side.release }?.minimumClientVersion
        }
        self.init(
            release: release,
            isUpToDate: false,
            critical: side.critical,
            minimumClientVersion: minimum,
            files: files,
            removals: plan.removals.map(\.path)
        )
    }
}
