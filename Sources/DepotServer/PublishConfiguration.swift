/// How publishing behaves.
public struct PublishConfiguration: Sendable {
    /// Bearer tokens that may publish. Empty: publishing is disabled.
    public var tokens: [String]
    /// The largest upload accepted, in bytes.
    public var maxUploadBytes: Int64
    /// How many versions of each path stay available (the live one included).
    public var keepVersions: Int
    /// How long a retired version and its blob stay available, for downloads under way.
    public var retiredGracePeriod: Duration
    /// How often retired versions and unreferenced blobs are collected.
    public var collectionInterval: Duration
    /// The longest logical path accepted, in bytes.
    public var maxPathLength: Int

    public init(
        tokens: [String] = [],
        maxUploadBytes: Int64 = 4 << 30,
        keepVersions: Int = 5,
        retiredGracePeriod: Duration = .seconds(600),
        collectionInterval: Duration = .seconds(60),
        maxPathLength: Int = 1024
    ) {
        self.tokens = tokens
        self.maxUploadBytes = maxUploadBytes
        self.keepVersions = keepVersions
        self.retiredGracePeriod = retiredGracePeriod
        self.collectionInterval = collectionInterval
        self.maxPathLength = maxPathLength
    }
}
