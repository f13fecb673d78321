import DepotConnection
import DepotHTTP
import DepotStore

/// Everything `depot serve` can be told, loaded once at start-up.
public struct ServerConfiguration: Sendable {
    /// The address to listen on.
    public var host: String
    /// The port to listen on; 0 picks a free one.
    public var port: Int
    /// The `Server` field value, or `nil` to send none.
    public var serverName: String?
    /// Limits on request header fields; a request over them gets 400 and the connection closes.
    public struct HeaderLimits: Sendable {
        /// The largest single field line, in bytes.
        public var maxFieldBytes: Int
        /// The largest header block, in bytes.
        public var maxListBytes: Int
        /// The most field lines.
        public var maxFieldCount: Int

        public init(maxFieldBytes: Int = 80 * 1024, maxListBytes: Int = 80 * 1024, maxFieldCount: Int = 1000) {
            self.maxFieldBytes = maxFieldBytes
            self.maxListBytes = maxListBytes
            self.maxFieldCount = maxFieldCount
        }
    }

    /// Limits on request headers.
    public var headerLimits: HeaderLimits
    /// Timeouts and the cap on open connections.
    public var connectionLimits: ConnectionLimits
    /// The time ``connectionLimits`` are judged by: a test's, or (nil) the system's monotonic
    /// clock.
    public var connectionClock: ConnectionClock?
    /// Addresses of reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed.
    public var trustedProxies: Set<String>
    /// Who may read `/metrics` without a token.
    public var metricsAllowedAddresses: Set<String>
    /// A bearer token for `/metrics`; when set, it is required from every address.
    public var metricsToken: String?
    /// The operator's dashboard and its admin API.
    public var dashboard: DashboardConfiguration
    /// Whether every request is logged, one line when its response ends.
    public var logsRequests: Bool
    /// How requests are logged, when they are.
    public var accessLog: AccessLogConfiguration
    /// Whether GET and HEAD requests answered by a 304 or in-memory content skip Hummingbird's
    /// pipeline (``DirectResponder``).
    public var directResponses: Bool
    /// Bytes of small files (64 KiB or less) held in memory, for the public folder and for the
    /// published files each, so that their 200s take the direct path.
    public var memoryCacheBytes: Int
    /// How many resources of published content (files, sidecars, blobs, patches) are kept,
    /// read from the catalog when first asked for (``ResourceCache``); a kept resource takes the
    /// direct path.
    public var resourceCacheEntries: Int
    /// glibc malloc arenas `depot serve` allows (``Heap/limitArenas(to:)``); 0 leaves glibc's
    /// default of eight a core.
    public var mallocArenas: Int
    /// The most stored files each event loop keeps open between direct answers (0: a file is
    /// opened for each answer), so that a range or a download of a recently sent file costs no
    /// `open(2)` (``OpenFileCache``).
    public var openFilesPerEventLoop: Int
    /// How long a file no answer uses stays open, at least (at most twice as long).
    public var openFileIdleTime: Duration
    /// How long in-flight requests may run after SIGTERM or SIGINT before they are cut.
    public var shutdownGracePeriod: Duration
    /// Named tokens and what each may do (`access.tokens`, ``AccessToken/init(entry:position:)``);
    /// ``allTokens`` adds the unnamed ones of ``PublishConfiguration/tokens`` and
    /// ``DashboardConfiguration/readTokens``.
    public var accessTokens: [AccessToken] = []
    /// The folder served as it is.
    public var publicDirectory: String
    /// Where Depot keeps its data: `catalog.sqlite`, `blobs/`, `tmp/`.
    public var dataDirectory: String
    /// How often the public folder is checked for changes; `nil` never rechecks.
    public var publicRescanInterval: Duration?
    /// A folder the server keeps in step with what it publishes, as plain files any static web
    /// server or object store serves (``StaticExport``); `nil` keeps none.
    public var exportDirectory: String?
    /// Awaited before each export to ``exportDirectory``: for tests that hold the export back
    /// (``ExportFollower``).
    package var beforeExport: (@Sendable () async -> Void)?
    /// Awaited before the first scan of ``publicDirectory``: for tests that hold it back
    /// (``PublicSiteRescanService``).
    package var beforePublicScan: (@Sendable () async -> Void)?
    /// Called on the variant maker's thread after each chunk of a stored file it reads, before
    /// encoding it: for tests that hold an encoding mid-file (``VariantMaker``). A call that
    /// blocks holds that thread only.
    package var variantChunkRead: (@Sendable () -> Void)?
    /// The time `/readyz`'s verdict ages by (``ReadinessCheck``): a test's, or (nil) the system's
    /// monotonic clock.
    package var readinessClock: ConnectionClock?
    /// Awaited at the start of each computation of `/readyz`'s verdict: for tests that count and
    /// hold them (``ReadinessCheck``).
    package var beforeReadinessProbe: (@Sendable () async -> Void)?
    /// The wait after a failed first scan of ``publicDirectory`` before the next try; it doubles
    /// each time, up to a minute. Shorter in tests.
    package var publicScanRetry: Duration = .seconds(1)
    /// `Cache-Control` for files of the public folder.
    public var publicCacheControl: CacheControlPolicy
    /// Limits on `Range` requests.
    public var rangeLimits: RangeLimits
    /// How gzip variants are made.
    public var store: BlobStoreConfiguration
    /// How brotli and zstd variants are made.
    public var variants: VariantConfiguration
    /// Who may publish, size limits and retention.
    public var publish: PublishConfiguration
    /// `Cache-Control` of published files, the manifest and blobs.
    public var cachePolicy: PublishedContent.CachePolicy
    /// How channel documents are signed.
    public var channels: ChannelSigner
    /// How staged rollouts are driven.
    public var rollouts: RolloutConfiguration
    /// What `POST /v1/reports` takes.
    public var reports: ReportConfiguration
    /// How many pages' packs are made at once, and how many more may wait (``PagePacks``).
    public var packs = ComputeLimits()

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        serverName: String? = nil,
        shutdownGracePeriod: Duration = .seconds(30),
        headerLimits: HeaderLimits = HeaderLimits(),
        connectionLimits: ConnectionLimits = ConnectionLimits(),
        trustedProxies: Set<String> = [],
        logsRequests: Bool = true,
        accessLog: AccessLogConfiguration = AccessLogConfiguration(),
        directResponses: Bool = true,
        memoryCacheBytes: Int = 16 << 20,
        resourceCacheEntries: Int = 8192,
        mallocArenas: Int = 2,
        openFilesPerEventLoop: Int = 64,
        openFileIdleTime: Duration = .seconds(10),
        metricsAllowedAddresses: Set<String> = ["127.0.0.1", "::1"],
        metricsToken: String? = nil,
        dashboard: DashboardConfiguration = DashboardConfiguration(),
        publicDirectory: String = "public",
        dataDirectory: String = "data",
        publicRescanInterval: Duration? = .seconds(2),
        exportDirectory: String? = nil,
        publicCacheControl: CacheControlPolicy = CacheControlPolicy(defaultValue: "no-cache"),
        rangeLimits: RangeLimits = RangeLimits(),
        store: BlobStoreConfiguration = BlobStoreConfiguration(),
        variants: VariantConfiguration = VariantConfiguration(),
        publish: PublishConfiguration = PublishConfiguration(),
        cachePolicy: PublishedContent.CachePolicy = PublishedContent.CachePolicy(),
        channels: ChannelSigner = ChannelSigner(),
        rollouts: RolloutConfiguration = RolloutConfiguration(),
        reports: ReportConfiguration = ReportConfiguration()
    ) {
        self.host = host
        self.port = port
        self.serverName = serverName
        self.shutdownGracePeriod = shutdownGracePeriod
        self.headerLimits = headerLimits
        self.connectionLimits = connectionLimits
        self.trustedProxies = trustedProxies
        self.logsRequests = logsRequests
        self.accessLog = accessLog
        self.directResponses = directResponses
        self.memoryCacheBytes = memoryCacheBytes
        self.resourceCacheEntries = resourceCacheEntries
        self.mallocArenas = mallocArenas
        self.openFilesPerEventLoop = openFilesPerEventLoop
        self.openFileIdleTime = openFileIdleTime
        self.metricsAllowedAddresses = metricsAllowedAddresses
        self.metricsToken = metricsToken
        self.dashboard = dashboard
        self.publicDirectory = publicDirectory
        self.dataDirectory = dataDirectory
        self.publicRescanInterval = publicRescanInterval
        self.exportDirectory = exportDirectory
        self.publicCacheControl = publicCacheControl
        self.rangeLimits = rangeLimits
        self.store = store
        self.variants = variants
        self.publish = publish
        self.cachePolicy = cachePolicy
        self.channels = channels
        self.rollouts = rollouts
        self.reports = reports
    }
}
