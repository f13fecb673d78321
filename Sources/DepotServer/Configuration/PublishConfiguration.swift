/// How publishing behaves.
public struct PublishConfiguration: Sendable {
    /// Bearer tokens that may publish. Empty: publishing is disabled.
    public var tokens: [String]
    /// The largest upload accepted, in bytes.
    public var maxUploadBytes: Int64
    /// How many versions of each path stay available (the live one included).
    public var keepVersions: Int
    /// How many releases are kept besides those a channel points to: the newest ones, which
    /// `depot release promote` can go back to.
    public var keepReleases: Int
    /// How long a retired version and its blob, or a retired release, stay available, for
    /// downloads under way.
    public var retiredGracePeriod: Duration
    /// How often retired versions and unreferenced blobs are collected.
    public var collectionInterval: Duration
    /// How long a blob uploaded by `PUT /v1/blobs/…` waits for a release to name it.
    public var uploadLifetime: Duration
    /// The largest release commit (`POST /v1/releases`) body, in bytes.
    public var maxCommitBytes: Int
    /// The longest logical path accepted, in bytes.
    public var maxPathLength: Int
    /// The most hashes one `POST /v1/blobs/missing` may ask about.
    public var maxMissingHashes: Int
    /// How patches between versions are made.
    public var deltas: DeltaConfiguration

    public init(
        tokens: [String] = [],
        maxUploadBytes: Int64 = 4 << 30,
        keepVersions: Int = 5,
        keepReleases: Int = 20,
        retiredGracePeriod: Duration = .seconds(600),
        collectionInterval: Duration = .seconds(60),
        uploadLifetime: Duration = .seconds(86400),
        maxCommitBytes: Int = 64 << 20,
        maxPathLength: Int = 1024,
        maxMissingHashes: Int = 100_000,
        deltas: DeltaConfiguration = .init()
    ) {
        self.tokens = tokens
        self.maxUploadBytes = maxUploadBytes
        self.keepVersions = keepVersions
        self.keepReleases = keepReleases
        self.retiredGracePeriod = retiredGracePeriod
        self.collectionInterval = collectionInterval
        self.uploadLifetime = uploadLifetime
        self.maxCommitBytes = maxCommitBytes
        self.maxPathLength = maxPathLength
        self.maxMissingHashes = maxMissingHashes
        self.deltas = deltas
    }
}

/// How patches between versions are made: before a release is committed, from each of the
/// previous versions of each changed path to its new content.
public struct DeltaConfiguration: Sendable {
    /// From how many previous versions a patch is made; 0 makes none.
    public var previousVersions: Int
    /// A patch is kept only when it is at most this fraction of the full download (the gzip
    /// variant, or the content when it has none).
    public var maximumRatio: Double
    /// Every how many bytes the encoder indexes the old version: 8 uses about one old-version
    /// size of memory besides the old version itself; 4 finds more matches in rebuilt files
    /// (about 12% smaller patches for a VACUUMed SQLite file) with about 1.7 times as much.
    public var indexStep: Int

    /// The largest earlier version a patch is made from, in bytes. The encoder holds the old
    /// version and its index in memory (about 1.75 times its size with `indexStep` 8), so a
    /// larger one gets no patch; clients download the new version whole.
    public var maximumSourceBytes: Int64

    /// Whether the patches' VCDIFF sections are packed with LZMA, as `xdelta3 -9` packs them
    /// (secondary compressor 2): 8 to 21% smaller patches. Depot's client and xdelta3 read
    /// them; a VCDIFF decoder without secondary compressors (`A-IM: vcdiff` clients other than
    /// Depot's, clients built before it) does not.
    public var packSections: Bool

    /// The most entity tags of an RFC 3229 request's `If-None-Match` looked up as bases of a
    /// patch; the others are ignored (each costs a catalog read).
    public var maximumBaseTags: Int

    public init(
        previousVersions: Int = 3,
        maximumRatio: Double = 0.5,
        indexStep: Int = 8,
        maximumSourceBytes: Int64 = 1 << 30,
        packSections: Bool = true,
        maximumBaseTags: Int = 8
    ) {
        self.previousVersions = previousVersions
        self.maximumRatio = maximumRatio
        self.indexStep = indexStep
        self.maximumSourceBytes = maximumSourceBytes
        self.packSections = packSections
        self.maximumBaseTags = maximumBaseTags
    }
}
