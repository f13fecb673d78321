import DepotManifest
import DepotPolicy
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
        /// The bytes that way transfers: the listed patch, the blocks the local copy lacks (with
        /// the block index), or the gzip variant or the file whole, or its bytes in its page's
        /// pack. For a patch the server makes on request the whole download is the bound, and
        /// for a page that may come in its brotli pack (whose length is the server's word, not
        /// signed) its plain pack's bytes are: ``isBound``.
        public var expectedBytes: Int64
        /// Whether ``expectedBytes`` is an upper bound rather than the size listed.
        public var isBound: Bool
    }

    /// With release folders (``FolderLayout/releaseFolders``), the bytes of the unchanged
    /// databases copied into the new release's folder (other unchanged files are linked).
    public var copiedBytes: Int64 = 0

    /// The bytes of the documents a download after this check fetches (``DepotClient/check()``):
    /// the channel document again (a check keeps no state), and any root it walks; the release
    /// document and pages the check fetched are kept for it. 0 in a plan a download makes.
    public var documentBytes: Int64 = 0

    /// The bytes the download is expected to transfer, documents aside: the figure a budget
    /// (``DepotClient/Configuration/maximumTransferBytes``) and progress are judged by.
    public var expectedBytes: Int64 { files.reduce(0) { $0 + $1.expectedBytes } }
    /// The bytes the download is expected to transfer, documents included: what its report's
    /// ``SyncReport/bytesTransferred`` then says.
    public var transferBytes: Int64 { expectedBytes + documentBytes }
    /// The local space the download needs: each changed file is staged whole before the switch,
    /// and with release folders each unchanged database is copied (``copiedBytes``).
    public var requiredBytes: Int64 { Self.spaceNeeded(files.lazy.map { ($0.size, $0.way == .staged) }, copied: copiedBytes) }

    /// The local space a download of `files` needs: each not yet staged is staged whole, and
    /// `copied` bytes of databases are copied. The one rule a check's plan and a download's
    /// space check (``SyncAttempt/checkSpace(_:estimate:)``) follow.
    static func spaceNeeded(_ files: some Sequence<(size: Int64, isStaged: Bool)>, copied: Int64) -> Int64 {
        files.reduce(copied) { $0 + ($1.isStaged ? 0 : $1.size) }
    }

    enum CodingKeys: String, CodingKey {
        case release, isUpToDate, critical, minimumClientVersion, files, removals, copiedBytes, documentBytes
        case expectedBytes, transferBytes, requiredBytes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        release = try container.decodeIfPresent(HeldRelease.self, forKey: .release)
        isUpToDate = try container.decode(Bool.self, forKey: .isUpToDate)
        critical = try container.decode(Bool.self, forKey: .critical)
        minimumClientVersion = try container.decodeIfPresent(String.self, forKey: .minimumClientVersion)
        files = try container.decode([File].self, forKey: .files)
        removals = try container.decode([String].self, forKey: .removals)
        copiedBytes = try container.decodeIfPresent(Int64.self, forKey: .copiedBytes) ?? 0
        documentBytes = try container.decodeIfPresent(Int64.self, forKey: .documentBytes) ?? 0
    }

    /// Encodes the totals too (``expectedBytes``, ``transferBytes``, ``requiredBytes``), for
    /// `depot sync --check --json`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(release, forKey: .release)
        try container.encode(isUpToDate, forKey: .isUpToDate)
        try container.encode(critical, forKey: .critical)
        try container.encodeIfPresent(minimumClientVersion, forKey: .minimumClientVersion)
        try container.encode(files, forKey: .files)
        try container.encode(removals, forKey: .removals)
        try container.encode(copiedBytes, forKey: .copiedBytes)
        try container.encode(documentBytes, forKey: .documentBytes)
        try container.encode(expectedBytes, forKey: .expectedBytes)
        try container.encode(transferBytes, forKey: .transferBytes)
        try container.encode(requiredBytes, forKey: .requiredBytes)
    }

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

    /// The plan of a sync to `release`, from the ways of its fetches (``Way``, ``ways(of:staging:localFile:localCopies:)``),
    /// judged as the stager judges them: what is staged intact, what a download under way holds
    /// already (in `.depot/partial/`), what the folder holds at the path, and for blocks what
    /// the local copy holds of them (`blocks`: the bytes a rebuild transfers within its budget,
    /// index included, from the block indexes fetched before; `nil` when the blocks are not
    /// worth their bytes or were not fetched, and the next way is taken, as the stager takes
    /// it), and for small files their pages' packs (`packs`: the new release's pages;
    /// ``pack(_:_:pages:)``). No network: what it weighs was fetched before.
    init(
        _ ways: [Way],
        removals: [String],
        release: HeldRelease,
        rollout side: RolloutSide,
        document: ChannelDocument,
        staging: StagingFolder,
        blocks: (BlockQuestion) -> Int64?,
        packs: [(sha256: String, page: ReleasePage)] = []
    ) {
        var files: [File] = []
        var packable = Set<String>()
        for way in ways {
            let entry = way.fetch.entry
            if FileStager.isPackable(way.actions) { packable.insert(entry.path) }
            var chosen: (way: SyncReport.Outcome, bytes: Int64, isBound: Bool)?
            for action in way.actions where chosen == nil {
                switch action {
                case .alreadyStaged: chosen = (.staged, 0, false)
                case .empty: chosen = (.full, 0, false)
                case .patch(let patch): chosen = (.delta, patch.size, false)
                case .requestedPatch: chosen = (.delta, way.wholeLength, true)
                case .blocks(let restoring):
                    let question = way.blockQuestion(restoring: restoring)
                    if let bytes = blocks(question) { chosen = (.blocks, bytes + question.patchBytes, false) }
                case .download(let whole): chosen = (SyncReport.Outcome(whole.coding), whole.size, false)
                case .stream(let whole):
                    // A download begun earlier resumes: only the rest comes (none when whole: it is checked, fetched again if wrong).
                    let held = staging.partialFile(FileStager.partialName(of: whole)).size ?? 0
                    chosen = (SyncReport.Outcome(whole.coding), held <= whole.size ? whole.size - held : whole.size, false)
                }
            }
            let (outcome, bytes, isBound) = chosen ?? (.full, entry.size, false)
            files.append(File(path: entry.path, size: entry.size, way: outcome, expectedBytes: bytes, isBound: isBound))
        }
        Self.pack(&files, packable, pages: packs)
        self.init(
            release: release,
            isUpToDate: false,
            critical: side.critical,
            minimumClientVersion: Self.minimumClientVersion(of: side, in: document),
            files: files,
            removals: removals
        )
    }

    /// The app version the release of `side` needs, as `document` says: its own release's, its
    /// rollout's or a fallback's.
    private static func minimumClientVersion(of side: RolloutSide, in document: ChannelDocument) -> String? {
        if side.release == document.release { return document.minimumClientVersion }
        if side.release == document.rollout?.release { return document.rollout?.minimumClientVersion }
        return document.fallbacks?.first { $0.release == side.release }?.minimumClientVersion
    }
}
