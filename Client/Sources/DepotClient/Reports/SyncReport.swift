import DepotHTTP
import DepotPolicy

/// What a sync did.
public struct SyncReport: Sendable, Codable, Equatable {
    /// What happened to one file.
    public enum Outcome: String, Sendable, Codable {
        /// The local copy already matched.
        case unchanged
        /// Fetched and verified by an earlier sync that did not finish; nothing was downloaded.
        case staged
        /// Downloaded as gzip and decoded.
        case gzip
        /// Downloaded as brotli and decoded.
        case brotli
        /// Downloaded as zstd and decoded.
        case zstd
        /// Downloaded whole, without compression.
        case full
        /// An interrupted download was completed with a range request.
        case resumed
        /// Rebuilt from a patch of the file held: listed by the release, or made by the server
        /// when asked (a file more releases behind than the listed patches reach).
        case delta
        /// Rebuilt from the blocks of a local copy that was no published version (the app wrote
        /// to it, or it was damaged) and the blocks it lacked; when the blocks restored the
        /// version held, its patch then made the new one.
        case blocks
        /// Downloaded with other small files of its release page, in one request for the page's
        /// pack (`/packs/{page sha256}`).
        case packed
        /// Removed because it left the release.
        case removed
        /// Could not be synced; the folder stays at the release it held.
        case failed

        /// Whether bytes came from a server for it.
        var isFetched: Bool { [.gzip, .brotli, .zstd, .full, .resumed, .delta, .blocks, .packed].contains(self) }

        /// The outcome of a whole download in `coding`.
        init(_ coding: ContentCoding) {
            switch coding {
            case .identity: self = .full
            case .gzip: self = .gzip
            case .br: self = .brotli
            case .zstd: self = .zstd
            }
        }
    }

    public struct File: Sendable, Codable, Equatable {
        public var path: String
        public var outcome: Outcome
        /// Bytes received for this file.
        public var bytesTransferred: Int64
        /// The size of the file: what a plain full download would have cost.
        public var size: Int64
        /// Why it failed, for the developer's log (``SyncError/message``).
        public var error: String?
        /// The code of its failure (``SyncError/code``): what ``DepotClient/sync(progress:)``
        /// throws when it is the first failure.
        public var code: SyncError.Code?
        /// The server it was fetched from (``DepotClient/servers``), when it was fetched.
        public var server: String?
        /// The content coding its bytes came in (`gzip`, `br`, `zstd`), when it came whole and
        /// encoded (resumed and packed downloads included); `nil` for plain bytes, a patch or
        /// blocks.
        public var encoding: String?

        /// Bytes a plain full download would have cost and this one did not.
        public var bytesSaved: Int64 {
            [.unchanged, .staged, .removed, .failed].contains(outcome) ? 0 : max(0, size - bytesTransferred)
        }
    }

    /// A server a sync left, and why.
    public struct Failover: Sendable, Codable, Equatable {
        public var server: String
        public var error: String
    }

    /// The server that answered the channel poll of the sync's last attempt.
    public var server: String?
    /// The servers that failed before it, in order: a connection error, an unexpected status, a
    /// timeout, or something that failed verification.
    public var failovers: [Failover] = []

    /// Whether the server answered the channel poll with 304.
    public var channelNotModified: Bool
    /// Bytes received for documents: the channel, the release and its pages.
    public var documentBytes: Int64
    /// The release the folder holds after the sync.
    public var release: HeldRelease?
    /// The release a download staged for ``DepotClient/apply()`` (``DepotClient/download()``):
    /// its files are counted as staged (``stagedCount``), not updated, since the folder the app
    /// reads has not changed. `nil` after a sync or a failure.
    public var staged: HeldRelease?
    /// How the channel document was judged.
    public var signature: ChannelCheck.SignatureStatus = .notChecked
    /// Which release of the channel document this install follows, and why: during a rollout,
    /// whether it is in it. `nil` when no document was checked.
    public var rollout: RolloutSide?
    /// The files that changed (fetched, removed or failed); the others are only counted.
    public var files: [File]
    /// Files of the release that were already up to date.
    public var unchangedCount = 0
    /// With reports on, what became of them as the sync ended: how many wait undelivered and
    /// why, how many the queue's bound dropped (``ReportDelivery``); `nil` with reports off.
    public var reports: ReportDelivery?

    public init(channelNotModified: Bool, documentBytes: Int64, release: HeldRelease?, files: [File]) {
        self.channelNotModified = channelNotModified
        self.documentBytes = documentBytes
        self.release = release
        self.files = files
    }

    enum CodingKeys: String, CodingKey {
        case channelNotModified, documentBytes, release, staged, signature, rollout, critical, files, unchangedCount, updatedCount, stagedCount
        case bytesTransferred, bytesSaved, server, failovers, reports
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        channelNotModified = try container.decode(Bool.self, forKey: .channelNotModified)
        documentBytes = try container.decode(Int64.self, forKey: .documentBytes)
        release = try container.decodeIfPresent(HeldRelease.self, forKey: .release)
        staged = try container.decodeIfPresent(HeldRelease.self, forKey: .staged)
        rollout = try container.decodeIfPresent(RolloutSide.self, forKey: .rollout)
        signature = try container.decode(ChannelCheck.SignatureStatus.self, forKey: .signature)
        files = try container.decode([File].self, forKey: .files)
        unchangedCount = try container.decode(Int.self, forKey: .unchangedCount)
        server = try container.decodeIfPresent(String.self, forKey: .server)
        failovers = try container.decodeIfPresent([Failover].self, forKey: .failovers) ?? []
        reports = try container.decodeIfPresent(ReportDelivery.self, forKey: .reports)
    }

    /// Encodes the totals too, for `depot sync --json`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(channelNotModified, forKey: .channelNotModified)
        try container.encode(documentBytes, forKey: .documentBytes)
        try container.encodeIfPresent(release, forKey: .release)
        try container.encodeIfPresent(staged, forKey: .staged)
        try container.encode(signature, forKey: .signature)
        try container.encodeIfPresent(rollout, forKey: .rollout)
        try container.encode(critical, forKey: .critical)
        try container.encode(files, forKey: .files)
        try container.encode(unchangedCount, forKey: .unchangedCount)
        try container.encode(updatedCount, forKey: .updatedCount)
        try container.encode(stagedCount, forKey: .stagedCount)
        try container.encode(bytesTransferred, forKey: .bytesTransferred)
        try container.encode(bytesSaved, forKey: .bytesSaved)
        try container.encodeIfPresent(server, forKey: .server)
        try container.encode(failovers, forKey: .failovers)
        try container.encodeIfPresent(reports, forKey: .reports)
    }

    public var bytesTransferred: Int64 { documentBytes + files.reduce(0) { $0 + $1.bytesTransferred } }
    public var bytesSaved: Int64 { files.reduce(0) { $0 + $1.bytesSaved } }
    /// Files the folder now holds in a new version: fetched, or staged by an earlier sync, and
    /// switched to. None after a download (``stagedCount``).
    public var updatedCount: Int { staged == nil ? arrivedCount : 0 }
    /// Files a download staged for ``DepotClient/apply()``, the folder unchanged (``staged``).
    public var stagedCount: Int { staged == nil ? 0 : arrivedCount }
    /// Files fetched, or staged by an earlier sync.
    private var arrivedCount: Int { files.filter { $0.outcome.isFetched || $0.outcome == .staged }.count }
    /// Whether the release the folder holds (``release``) is critical: the rollout side's flag,
    /// only when that side names the release held (a fallback, or a release only staged, is
    /// not the one the side may call critical).
    public var critical: Bool {
        guard let rollout, let release, rollout.release == release.id else { return false }
        return rollout.critical
    }
    public var removedCount: Int { files.filter { $0.outcome == .removed }.count }
    public var failedCount: Int { files.filter { $0.outcome == .failed }.count }
}
