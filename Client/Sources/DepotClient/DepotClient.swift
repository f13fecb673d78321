import Crypto
import DepotConcurrency
import DepotFiles
import DepotHTTP
import DepotManifest
import DepotPolicy
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps a local folder at the release a Depot channel points to.
///
/// A sync polls `/channels/{channel}` with `If-None-Match`; a 304 ends it after that one
/// request, unless the release chosen again from the document held (``RolloutSide``: a new app
/// version may leave a fallback) is not the one held. Otherwise it checks the document (``ChannelCheck``: signature, expiry and serial
/// when keys are trusted), fetches the release document and the pages whose hash differs from
/// the release it holds, and so learns what changed: O(change), at any catalog size. Each
/// changed file is fetched the cheapest way its copy allows (``ReleasePlan``): a patch from the
/// content held (listed by the release, or made by the server on request); the blocks a copy
/// that is no published version lacks (``BlockFetch``); else the smaller of its gzip and
/// identity variants, resuming interrupted downloads with `Range` and `If-Range`; a few files at
/// a time over one keep-alive connection pool. Every file is checked
/// against its SHA-256 and size in `.depot/staging/`, and only when all are there does the
/// folder switch, all at once for readers (``withCurrentRelease(_:)``, ``ReleaseJournal``).
///
/// Cancelling or killing a sync leaves the folder at the old release or the new, and the next
/// sync resumes.
///
/// Servers: an ordered list (``servers``), the origin and its mirrors, each serving the same
/// tree (docs/architecture.md, "Scaling out"). A sync starts with the first; on a connection
/// error, an unexpected status (5xx), a timeout or anything that fails verification (a
/// document, a file, a signature), the channel document included, it goes on with the next,
/// mid-sync too, and keeps what it verified: a file staged from one server is not fetched
/// again from the next. The report says which server served each file, and why any failed
/// (``SyncReport/failovers``).
///
/// HTTP caching: the client sets `reloadIgnoringLocalAndRemoteCacheData` and gives its session
/// no URL cache. URLSession's protocol cache would otherwise answer a poll from its own store
/// when a response lacks freshness headers (heuristic freshness, RFC 9111 §4.2.2). Depot
/// validates everything itself with ETags and hashes, so a local HTTP cache adds nothing but
/// staleness.
public struct DepotClient: Sendable {
    /// How a client behaves.
    public struct Configuration: Sendable {
        /// The channel to follow.
        public var channel: String
        /// Public keys (base64, as `depot keygen` prints them) whose signature a channel document
        /// must carry. Empty: documents are not checked, and reports say so.
        public var trustedKeys: [String]
        /// The root document the app ships (`depot root init`, signed; usually version 1): the
        /// root of trust, with thresholds and key rotation, in place of ``trustedKeys``. The client
        /// walks from it to the newest root the server names (`/roots/{n}.json`).
        public var trustedRoot: Data?
        /// Remove local files that are not in the release.
        public var removesDeletedFiles: Bool
        /// With ``FolderLayout/releaseFolders``, keep the previous release's folder beside the
        /// current one, so that ``DepotClient/revert()`` can go back to it with no network. It
        /// costs what the two releases do not share: the files that changed, and a copy of each
        /// database. Off: the previous folder goes once nobody holds it, and `revert()` throws.
        public var keepsPreviousRelease: Bool
        /// Seconds without data after which a request fails.
        public var requestTimeout: TimeInterval
        /// Bytes a second every transfer must average over each ``transferRateWindow``, or it
        /// fails (as curl's `--speed-limit`): a mirror trickling bytes cannot hold a sync. 0 turns
        /// the check off.
        public var minimumTransferRate: Int
        /// Seconds the transfer rate is averaged over (curl's `--speed-time`).
        public var transferRateWindow: TimeInterval
        /// The time the transfer rate and ``documentTimeout`` are judged by: the system's
        /// monotonic clock, or a test's.
        public var transferClock: any Clock<Duration>
        /// Seconds a document (channel, release or page) may take to arrive whole.
        public var documentTimeout: TimeInterval
        /// The largest document (channel, release or page) accepted, in bytes.
        public var maximumDocumentBytes: Int
        /// Downloads under way at once.
        public var parallelDownloads: Int
        /// Whether the install reports `applied`, `failed` and `healthy` to the server
        /// (`POST /v1/reports`), for staged rollouts' gates; off unless the app turns it on.
        /// Reports name the install only by a hash of its random id with the release.
        public var sendsReports: Bool
        /// The app's version: a release whose `minimumClientVersion` is higher is not taken, but
        /// the newest earlier one this version can use. `nil`: every release is taken.
        public var clientVersion: ClientVersion?
        /// Where reports go: the origin, whose gates count them (``ReportDestination``). `nil`:
        /// the server of a client of one server; with several, none, and reports wait
        /// (``DepotClient/reportDelivery()`` says why). Reports go nowhere else: a mirror counts
        /// nothing, and one that answered 202 and dropped them would lose them. A path without
        /// its trailing slash is taken as a folder, as a server's is (``ServerURL``).
        public var reportServer: URL?
        /// The most reports `.depot/reports.json` keeps while the report server cannot take
        /// them; past it the oldest are dropped, and counted (``ReportDelivery/dropped``).
        public var reportQueueCapacity: Int
        /// The most bytes a download may be expected to transfer (``UpdatePlan/expectedBytes``,
        /// documents aside): a release that would cost more is not downloaded, and the sync fails
        /// with ``SyncError`` `.overBudget`, which says what it needed. A plan within it holds
        /// the transfers too: servers that send more than the plan (a failed attempt and its
        /// fallback, a lying mirror) cannot take the sync past it; the transfer that would is
        /// refused or stopped, and the files left fail with `.overBudget`. `nil`: no limit.
        public var maximumTransferBytes: Int64?
        /// The budget of a critical release, which the app should apply at once; `nil`:
        /// ``maximumTransferBytes``.
        public var criticalMaximumTransferBytes: Int64?
        /// Whether downloads may use an expensive network (cellular, a personal hotspot), on the
        /// platforms that tell (URLSession's `allowsExpensiveNetworkAccess`).
        public var allowsExpensiveNetworkAccess: Bool
        /// Whether downloads may use a network in Low Data Mode, on the platforms that tell
        /// (URLSession's `allowsConstrainedNetworkAccess`).
        public var allowsConstrainedNetworkAccess: Bool
        /// How the folder holds its release: in place, or a folder per release behind the link
        /// `current`, for an app that keeps a database open across updates (``FolderLayout``).
        /// A folder keeps the layout it was first synced in.
        public var layout: FolderLayout
        /// How the space free on the folder's file system is read before a download, which
        /// fails with ``SyncError`` `.noSpace` when the release needs more
        /// (``UpdatePlan/requiredBytes``): `statvfs(3)`, or a test's reading.
        public var freeSpace: FreeSpace
        /// Whether this sync may drop or replace the trust the folder was last synced with
        /// (``trustedKeys``, ``trustedRoot``): off, a folder synced with trusted keys or a root
        /// refuses a sync that trusts nothing, or only other keys (``SyncError`` `.untrusted`).
        public var replacesTrust: Bool

        public init(
            channel: String = ChannelName.default,
            trustedKeys: [String] = [],
            trustedRoot: Data? = nil,
            removesDeletedFiles: Bool = true,
            requestTimeout: TimeInterval = 60,
            minimumTransferRate: Int = 1024,
            transferRateWindow: TimeInterval = 30,
            transferClock: any Clock<Duration> = ContinuousClock(),
            documentTimeout: TimeInterval = 120,
            maximumDocumentBytes: Int = 16 << 20,
            parallelDownloads: Int = 4,
            sendsReports: Bool = false,
            clientVersion: ClientVersion? = nil,
            reportServer: URL? = nil,
            reportQueueCapacity: Int = ReportQueue.defaultCapacity,
            maximumTransferBytes: Int64? = nil,
            criticalMaximumTransferBytes: Int64? = nil,
            allowsExpensiveNetworkAccess: Bool = true,
            allowsConstrainedNetworkAccess: Bool = true,
            layout: FolderLayout = .inPlace,
            keepsPreviousRelease: Bool = false,
            freeSpace: FreeSpace = .fileSystem,
            replacesTrust: Bool = false
        ) {
            self.channel = channel
            self.trustedKeys = trustedKeys
            self.trustedRoot = trustedRoot
            self.removesDeletedFiles = removesDeletedFiles
            self.requestTimeout = requestTimeout
            self.minimumTransferRate = minimumTransferRate
            self.transferRateWindow = transferRateWindow
            self.transferClock = transferClock
            self.documentTimeout = documentTimeout
            self.maximumDocumentBytes = maximumDocumentBytes
            self.parallelDownloads = parallelDownloads
            self.sendsReports = sendsReports
            self.clientVersion = clientVersion
            self.reportServer = reportServer
            self.reportQueueCapacity = reportQueueCapacity
            self.maximumTransferBytes = maximumTransferBytes
            self.criticalMaximumTransferBytes = criticalMaximumTransferBytes
            self.allowsExpensiveNetworkAccess = allowsExpensiveNetworkAccess
            self.allowsConstrainedNetworkAccess = allowsConstrainedNetworkAccess
            self.layout = layout
            self.keepsPreviousRelease = keepsPreviousRelease
            self.freeSpace = freeSpace
            self.replacesTrust = replacesTrust
        }
    }

    /// The servers, in the order they are tried.
    public let servers: [URL]
    /// The first of ``servers``.
    public var server: URL { servers[0] }
    public let directory: URL
    /// `directory.path`, worked out once: a sync builds a local path per file, and a URL's
    /// `path` decodes the URL again each time it is asked.
    let directoryPath: String
    /// The folder, as every write to it goes (``SyncFolder``).
    let folder: SyncFolder
    public let configuration: Configuration
    /// Called at each step of a switch (tests crash a switch there by throwing); `nil` in use.
    var switchFault: (@Sendable (SwitchStep) throws -> Void)?
    /// Seconds since 1970 now, against which documents' expiry is checked (tests move it).
    var now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    /// A client of one server.
    public init(server: URL, directory: URL, configuration: Configuration = Configuration()) {
        self.init(servers: [server], directory: directory, configuration: configuration)
    }

    /// A client of the servers `servers` (not empty), tried in this order. A server's URL may
    /// have a path, with or without its trailing slash (an S3 path-style bucket,
    /// `https://s3.example.com/bucket/prefix`): the tree is read below it (``ServerURL``).
    public init(servers: [URL], directory: URL, configuration: Configuration = Configuration()) {
        precondition(!servers.isEmpty, "a DepotClient needs a server")
        self.servers = servers.map(ServerURL.base)
        self.directory = directory
        self.directoryPath = directory.path
        self.folder = SyncFolder(path: directory.path)
        self.configuration = configuration
    }

    var stateFile: URL { directory.appendingPathComponent(OwnFile.state.rawValue) }
    var cache: ReleaseCache { ReleaseCache(folder: folder) }

    var sessionConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.timeoutIntervalForRequest = self.configuration.requestTimeout
        configuration.httpMaximumConnectionsPerHost = max(1, self.configuration.parallelDownloads)
        let testProtocols = Self.testProtocols.withLock { $0 }
        if !testProtocols.isEmpty { configuration.protocolClasses = testProtocols + (configuration.protocolClasses ?? []) }
        #if canImport(Darwin)
        configuration.allowsExpensiveNetworkAccess = self.configuration.allowsExpensiveNetworkAccess
        configuration.allowsConstrainedNetworkAccess = self.configuration.allowsConstrainedNetworkAccess
        #endif
        return configuration
    }

    /// Brings the folder to the release the channel points to.
    ///
    /// - Parameter progress: Called as download bytes arrive and files are staged, from any
    ///   thread, one call at a time (``SyncProgress``); the first, before the first byte, says
    ///   what the whole is expected to transfer. Given one, a sync works out what it expects
    ///   before downloading (as ``check()`` does), which may cost a few requests.
    /// - Returns: What happened to each changed file.
    /// - Throws: ``SyncError`` when the channel or the release cannot be fetched or believed,
    ///   or the folder is unusable, or another sync of the folder is running; and when any file
    ///   failed: the first failure's code, with the report attached (``SyncError/report``), which
    ///   names each failure. The folder then stays at the release it held (a release is applied
    ///   whole or not at all); what was downloaded is kept for the next sync.
    public func sync(progress: (@Sendable (SyncProgress) -> Void)? = nil) async throws -> SyncReport {
        try await run(to: .apply, progress: ProgressSink(overall: progress)).report
    }

    /// Which release of the channel document last followed this install follows, and why
    /// (``RolloutSide``); `nil` before the first sync.
    public func rolloutSide() throws -> RolloutSide? {
        let context = self.context
        let state = context.state
        return try state.channel.map { try context.rolloutSide(of: $0, holding: state.release?.id) }
    }
}
