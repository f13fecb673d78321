import Crypto
import DepotFiles
import DepotHTTP
import DepotManifest
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps a local folder at the release a Depot channel points to.
///
/// A sync polls `/channels/{channel}` with `If-None-Match`; a 304 ends it after that one
/// request. Otherwise it checks the document (``ChannelCheck``: signature, expiry and serial
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
        /// Where reports go: the origin, whose gates count them. `nil`: the last of the servers
        /// (the origin after its mirrors, as the README lists them). Reports go nowhere else: a
        /// mirror counts nothing, and one that answered 202 and dropped them would lose them.
        public var reportServer: URL?
        /// The most bytes a download may be expected to transfer (``UpdatePlan/expectedBytes``,
        /// documents aside): a release that would cost more is not downloaded, and the sync fails
        /// with ``SyncError`` `.overBudget`, which says what it needed. `nil`: no limit.
        public var maximumTransferBytes: Int64?
        /// The budget of a critical release, which the app should apply at once; `nil`:
        /// ``maximumTransferBytes``.
        public var criticalMaximumTransferBytes: Int64?
        /// Whether downloads may use an expensive network (cellular, a personal hotspot), on the
        /// platforms that tell (URLSession's `allowsExpensiveNetworkAccess`).
        public var allowsExpensiveNetworkAccess = true
        /// Whether downloads may use a network in Low Data Mode, on the platforms that tell
        /// (URLSession's `allowsConstrainedNetworkAccess`).
        public var allowsConstrainedNetworkAccess = true
        /// How the folder holds its release: in place, or a folder per release behind the link
        /// `current`, for an app that keeps a database open across updates (``FolderLayout``).
        /// A folder keeps the layout it was first synced in.
        public var layout = FolderLayout.inPlace

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
            reportServer: URL? = nil
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
        }
    }

    /// Progress of one file's download.
    public struct Progress: Sendable {
        public let path: String
        public let bytesReceived: Int64
        public let bytesExpected: Int64
    }

    /// The servers, in the order they are tried.
    public let servers: [URL]
    /// The server being read from: the first of ``servers``, within a sync the one it failed
    /// over to.
    public private(set) var server: URL
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

    /// A client of the servers `servers` (not empty), tried in this order.
    public init(servers: [URL], directory: URL, configuration: Configuration = Configuration()) {
        precondition(!servers.isEmpty, "a DepotClient needs a server")
        self.servers = servers
        self.server = servers[0]
        self.directory = directory
        self.directoryPath = directory.path
        self.folder = SyncFolder(path: directory.path)
        self.configuration = configuration
    }

    var stateFile: URL { directory.appendingPathComponent(OwnFile.state.rawValue) }
    var partialFolder: URL { directory.appendingPathComponent(StagingFolder.partialPath) }
    var cache: ReleaseCache { ReleaseCache(folder: folder) }

    var sessionConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.timeoutIntervalForRequest = self.configuration.requestTimeout
        configuration.httpMaximumConnectionsPerHost = max(1, self.configuration.parallelDownloads)
        #if canImport(Darwin)
        configuration.allowsExpensiveNetworkAccess = self.configuration.allowsExpensiveNetworkAccess
        configuration.allowsConstrainedNetworkAccess = self.configuration.allowsConstrainedNetworkAccess
        #endif
        return configuration
    }

    /// Brings the folder to the release the channel points to.
    ///
    /// - Parameter progress: Called as download bytes arrive, from any thread.
    /// - Returns: What happened to each changed file. When a file fails, the folder stays at the
    ///   release it held (a release is applied whole or not at all) and the report lists the
    ///   failure; what was downloaded is kept for the next sync.
    /// - Throws: ``SyncError`` when the channel or the release cannot be fetched or believed,
    ///   or the folder is unusable, or another sync of the folder is running.
    public func sync(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> SyncReport {
        try await run(to: .apply, progress: ProgressSink(file: progress)).report
    }

    /// Runs the sync's steps up to `goal` (``SyncGoal``), on each server in turn (``Failover``),
    /// under the folder's sync lock, once an interrupted switch is finished and waiting reports
    /// are sent; returns the report and, for `.check`, the plan.
    func run(to goal: SyncGoal, progress: ProgressSink) async throws -> (report: SyncReport, plan: UpdatePlan?) {
        let syncLock = try lockForSync()
        defer { syncLock.unlock() }
        try finishInterruptedSwitch()
        collectTrees()
        // Reports an earlier call could not send go first: a sync is when a server is reachable.
        await sendReports()
        /// What earlier servers of this sync fetched and verified, by path.
        var fetched: [String: SyncReport.File] = [:]
        var plan: UpdatePlan?
        let (result, failovers) = try await Failover.run(servers, name: \.absoluteString) { candidate, isLast in
            var attempt = self
            attempt.server = candidate
            var (report, checked) = try await attempt.syncFromServer(to: goal, progress: progress, reportsFailure: isLast)
            plan = checked
            report.files = report.files.map { file in
                if file.outcome == .staged, let earlier = fetched[file.path] { return earlier }
                var file = file
                if file.outcome.isFetched { file.server = candidate.absoluteString }
                return file
            }
            report.server = candidate.absoluteString
            guard report.failedCount > 0 else { return .done(report) }
            for file in report.files where file.outcome.isFetched { fetched[file.path] = file }
            let failure = report.files.first { $0.outcome == .failed }
            return .poor(report, reason: "\(failure?.path ?? ""): \(failure?.error ?? "failed")")
        }
        var report = result
        report.failovers = failovers
        return (report, plan)
    }

    /// One sync from ``server`` up to `goal`, in a folder already locked and with no switch left
    /// half-done: the named steps poll (``TreeReader/checkedChannel``), plan (``ReleasePlan``),
    /// stage (``FileStager``), switch (``switchRelease(_:)``) and report.
    /// `reportsFailure`: whether a failed file is reported to the rollout gate (not when
    /// another server is left to try).
    private func syncFromServer(
        to goal: SyncGoal,
        progress: ProgressSink,
        reportsFailure: Bool
    ) async throws -> (SyncReport, UpdatePlan?) {
        var state = SyncState.load(from: folder)
        let held = state.release?.channel == configuration.channel ? state.release : nil
        let tree = try heldTree(of: state.release)
        let session = TransferSession(
            configuration: sessionConfiguration,
            limits: TransferLimits(
                minimumBytesPerSecond: configuration.minimumTransferRate,
                window: configuration.transferRateWindow,
                clock: configuration.transferClock
            )
        )
        defer { session.finish() }

        var trust = try trust()
        let now = now()
        // A 304 answers for the document held, so one is asked for only when that document is
        // held to be checked again: a cache or mirror that answers 304 forever cannot keep the
        // client on a document past its expiry, nor on one signed by a key no longer trusted.
        let revalidates: Bool
        if case .none = trust { revalidates = held != nil } else { revalidates = held != nil && state.channel != nil }
        let source = SessionSource(server: server, session: session, deadline: configuration.documentTimeout)
        let reader = TreeReader(source: source, maximumDocumentBytes: configuration.maximumDocumentBytes)
        let checked = try await reader.checkedChannel(
            configuration.channel,
            ifNoneMatch: revalidates ? state.channelETag : nil,
            trust: trust,
            fromFirstRoot: false,
            now: now,
            lastAccepted: held.map { .init(serial: $0.serial, release: $0.id, root: $0.root, signers: $0.signers.map(Set.init)) }
        )
        var report = SyncReport(channelNotModified: checked == nil, documentBytes: source.received.total, release: state.release, files: [])
        report.unchangedCount = Int(held?.files ?? 0)
        guard let checked else {
            if let document = state.channel {
                report.signature = try ChannelCheck.check(document, channel: configuration.channel, trust: trust, now: now, lastAccepted: nil)
                report.rollout = try rolloutSide(of: document, holding: held?.id)
            }
            return (report, .upToDate(held, rollout: report.rollout))
        }
        // The newest root walked is kept, for the next sync.
        if let newest = checked.roots.last { try folder.replace(.root, with: newest.bytes) }
        let document = checked.document
        let entityTag = checked.entityTag
        trust = checked.trust
        report.signature = checked.signature
        state.channel = document
        let side = try rolloutSide(of: document, holding: held?.id)
        report.rollout = side
        // A download staged for another release than the channel now names (it rolled back, or
        // moved on) is not to be applied: any step that learns it, a check too, drops it.
        if let bytes = folder.read(.staged),
            (try? JSONDecoder().decode(StagedRelease.self, from: Data(bytes)))?.journal.state.release?.id != side.release
        {
            try folder.remove(.staged)
        }
        if let held, side.release == held.id {
            let next = HeldRelease(
                id: held.id,
                number: side.number,
                channel: held.channel,
                serial: document.serial,
                root: document.root,
                signers: ChannelCheck.signers(of: document, under: trust).map { $0.sorted() },
                files: held.files,
                signature: report.signature
            )
            report.release = next
            report.documentBytes = source.received.total
            // A check changes nothing; the other steps keep the document that named the release.
            guard goal != .check else { return (report, .upToDate(next, rollout: side)) }
            state.channelETag = entityTag
            state.release = next
            try state.save(in: folder)
            return (report, nil)
        }

        let release = try await fetchRelease(side.release, base: held?.id, reader: reader)
        let before = held.flatMap { cache.release($0.id) }
        let pages = ReleasePlan.changedPages(from: before, to: release)
        // Pages of either release not held intact (a crash can lose unsynced ones) are fetched.
        // Each is decoded once: the plan compares them, the stager reads their packs.
        // A new tree is made of every file of the release: its every page is needed.
        let needed = Set(pages.before + (configuration.layout == .releaseFolders ? release.pages : pages.after))
        var decoded = [String: ReleasePage]()
        for sha256 in needed { decoded[sha256] = cache.page(sha256) }
        let fetched = try await fetchPages(needed.filter { decoded[$0] == nil }, bases: release.pageBases(from: before), reader: reader)
        report.documentBytes = source.received.total
        decoded.merge(fetched) { cached, _ in cached }
        func page(_ sha256: String) throws -> ReleasePage {
            guard let page = decoded[sha256] else {
                throw SyncError(.io, "the page \(sha256) is missing from \(self.directoryPath)/\(ReleaseCache.pages)")
            }
            return page
        }
        let afterPages = try pages.after.map { (sha256: $0, page: try page($0)) }
        var plan = try ReleasePlan(
            before: try pages.before.map { try page($0) },
            after: afterPages.map(\.page),
            removesDeletedFiles: configuration.removesDeletedFiles
        )
        // With release folders, every file the release keeps is carried over from the tree held:
        // one the app changed there is fetched instead (``ReleaseTrees``).
        let allEntries = configuration.layout == .releaseFolders ? try release.pages.flatMap { try page($0).entries } : []
        var carried = ReleaseTrees.Carried()
        if let tree, held != nil {
            let fetching = Set(plan.fetches.map(\.entry.path))
            carried = ReleaseTrees(folder: try folder.open()).altered(allEntries.lazy.filter { !fetching.contains($0.path) }, in: tree)
            plan.fetches = (plan.fetches + carried.altered.map { ReleasePlan.Fetch(entry: $0, held: nil) }).sorted { $0.entry.path < $1.entry.path }
        }
        report.unchangedCount = Int(release.files) - plan.fetches.count
        let next = HeldRelease(
            id: side.release,
            number: side.number,
            channel: document.channel,
            serial: document.serial,
            root: document.root,
            signers: ChannelCheck.signers(of: document, under: trust).map { $0.sorted() },
            files: release.files,
            signature: report.signature
        )
        let contentPath = contentPath(tree: tree)
        let budget =
            side.critical ? configuration.criticalMaximumTransferBytes ?? configuration.maximumTransferBytes : configuration.maximumTransferBytes
        var fileProgress = progress.file
        let localCopies = LocalCopies()
        if goal == .check || budget != nil || progress.overall != nil {
            let blocks = BlockFetch(server: server, session: session, width: configuration.parallelDownloads)
            var update = try await UpdatePlan(
                plan,
                release: next,
                rollout: side,
                document: document,
                staging: StagingFolder(try folder.open()),
                partialFolder: partialFolder,
                localURL: { try DepotClient.localURL(for: $0, in: contentPath) },
                localCopies: localCopies,
                blocks: { entry, local, budget in
                    try await localCopies.match(entry, at: local) {
                        try await blocks.match(entry, from: local, budget: budget, received: ByteCounter())
                    }.matched.expected
                }
            )
            update.copiedBytes = carried.copiedBytes
            if goal == .check { return (report, update) }
            if let budget, update.expectedBytes > budget {
                throw SyncError.overBudget(expected: update.expectedBytes, budget: budget, release: next.number)
            }
            fileProgress = progress.starting(expected: update.expectedBytes)
        }
        var stager = FileStager(
            server: server,
            staging: StagingFolder(try folder.open()),
            partialFolder: partialFolder,
            localURL: { try DepotClient.localURL(for: $0, in: contentPath) },
            parallelDownloads: configuration.parallelDownloads,
            session: session,
            progress: fileProgress
        )
        stager.pages = afterPages
        stager.localCopies = localCopies
        report.files = await stager.stage(plan.fetches)
        guard report.failedCount == 0 else {
            let reason = report.files.first { $0.outcome == .failed }.map { "\($0.path): \($0.error ?? "failed")" } ?? "failed"
            if reportsFailure { try await send(.failed(reason: reason), about: side.release, session: session) }
            return (report, nil)
        }

        state.channelETag = entityTag
        state.release = next
        var journal = ReleaseJournal(state: state, moves: plan.moves, removals: plan.removals.map(\.path))
        var built: (name: String, lock: FileLock)?
        defer { built?.lock.unlock() }
        if configuration.layout == .releaseFolders {
            built = try buildTree(of: next, entries: allEntries, plan: plan, held: held == nil ? nil : tree)
            journal = ReleaseJournal(state: state, moves: [], removals: [], tree: built?.name)
        }
        let staged = StagedRelease(base: held?.id, journal: journal, pagesBefore: pages.before)
        guard goal == .apply else {
            // Downloaded only: kept for ``apply()``, which needs no network.
            try folder.replace(.staged, with: try staged.encoded())
            report.release = held
            return (report, nil)
        }
        try switchRelease(to: staged)
        report.files += plan.removals.map { .init(path: $0.path, outcome: .removed, bytesTransferred: 0, size: $0.size) }
        report.release = next
        try await send(.applied, about: side.release, session: session)
        return (report, nil)
    }

    /// Queues `report` about `release` and sends the queue, when reports are on.
    private func send(_ report: HealthReport, about release: String, session: TransferSession) async throws {
        guard configuration.sendsReports else { return }
        try reportQueue.add(report, release: release, channel: configuration.channel, install: try installID())
        await sendReports(session: session)
    }

    /// Which release of the channel document last followed this install follows, and why
    /// (``RolloutSide``); `nil` before the first sync.
    public func rolloutSide() throws -> RolloutSide? {
        let state = SyncState.load(from: folder)
        return try state.channel.map { try rolloutSide(of: $0, holding: state.release?.id) }
    }

    /// The side of this install for `document`; the install id is made when a rollout first
    /// needs it.
    func rolloutSide(of document: ChannelDocument, holding: String?) throws -> RolloutSide {
        let version = configuration.clientVersion
        guard document.rollout != nil else { return try RolloutSide.decide(document, bucket: { _ in 0 }, holding: holding, clientVersion: version) }
        let install = try installID()
        return try RolloutSide.decide(document, bucket: install.bucket(salt:), holding: holding, clientVersion: version)
    }

    /// The local file for a release path; refuses paths that would leave the folder.
    func localURL(for path: String) throws -> URL {
        try Self.localURL(for: path, in: directoryPath)
    }

    /// The file of `path` in the folder at `directoryPath`, refusing a path that is not safe on
    /// every platform.
    static func localURL(for path: String, in directoryPath: String) throws -> URL {
        guard PortablePath.problem(path) == nil, let relative = safeRelativePath(path) else {
            throw SyncError(.corrupt, "the release names an unsafe path: \(path)")
        }
        // One URL from one string: appending segment by segment costs a URL parse each.
        return URL(fileURLWithPath: directoryPath + "/" + relative, isDirectory: false)
    }

    /// `path` as `/`-separated segments that name nothing outside the folder, or `nil`. Nearly
    /// every path is plain (RFC 3986's unreserved characters, no dot or empty segment) and is
    /// taken in one pass; any other is checked by encoding and decoding it as a request path.
    private static func safeRelativePath(_ path: String) -> String? {
        let absolute = "/" + path
        if RequestPath.plainRelativePath(absolute[...]) != nil { return path }
        guard let decoded = try? RequestPath(decoding: "/" + RequestPath.encode(path)), !decoded.segments.isEmpty else { return nil }
        return decoded.relativePath
    }

}
