import Crypto
import DepotConnection
import DepotHTTP
import DepotManifest
import DepotPolicy
import DepotStore

/// What the dashboard shows, read from the catalog and Depot's own counters: one model that the
/// admin API sends as JSON and the pages render as HTML.
struct DashboardData: Sendable {
    let catalog: Catalog
    let traffic: TrafficHistory
    let signer: ChannelSigner
    /// The networks a rollout's gate needs unless it says otherwise (``ReportConfiguration/gateNetworks``).
    let gateNetworks: Int
    /// The time rollouts are judged by (``RolloutConfiguration/clock``).
    let now: @Sendable () -> HTTPDate

    init(
        catalog: Catalog,
        traffic: TrafficHistory,
        signer: ChannelSigner,
        gateNetworks: Int = ReportConfiguration().gateNetworks,
        now: @escaping @Sendable () -> HTTPDate = { .now() }
    ) {
        self.catalog = catalog
        self.traffic = traffic
        self.signer = signer
        self.gateNetworks = gateNetworks
        self.now = now
    }

    struct Channel: Sendable, Encodable {
        let name: String
        let release: ReleaseSummary
        /// When the channel was last moved (IMF-fixdate).
        let since: String
        let serial: Int64
        /// The key id its documents are signed with; `nil`: unsigned.
        let signedBy: String?
        /// The rollout under way, as the row says it: `rolling out #4 to 10% (running)`.
        let rollingOut: String?
        /// What the Roll back button does, as its confirm asks it; `nil` when a rollback has
        /// nowhere to go.
        let rollbackConfirm: String?
    }

    struct Traffic: Sendable, Encodable {
        let summary: TrafficHistory.Summary
        /// The summary as the page shows it (`"304 share": "42%"`), by figure name: the page's
        /// script refreshes its figures from these, so the formatting lives in one place.
        let figures: [String: String]
        /// Oldest first.
        let minutes: [TrafficHistory.Minute]

        init(minutes: [TrafficHistory.Minute]) {
            let summary = TrafficHistory.Summary(minutes)
            self.summary = summary
            self.minutes = minutes
            figures = [
                "requests": String(summary.requests),
                "notModifiedShare": DashboardPage.percent(summary.notModifiedShare),
                "errors": String(summary.clientErrors + summary.serverErrors),
                "bytesSent": ByteCountText(summary.bytesSent),
                "bytesSaved": ByteCountText(summary.bytesSaved),
            ]
        }
    }

    struct Overview: Sendable, Encodable {
        let role: DashboardRole
        let channels: [Channel]
        /// Each channel's newest rollout, live or ended.
        let rollouts: [RolloutView]
        let releases: [ReleaseSummary]
        let traffic: Traffic
    }

    struct Diff: Sendable, Encodable {
        struct Change: Sendable, Encodable {
            let path: String
            let before: ReleaseEntrySize?
            let after: ReleaseEntrySize?
        }
        let from: ReleaseSummary
        let to: ReleaseSummary
        let added: [Change]
        let changed: [Change]
        let removed: [Change]
    }

    /// A file's version and size in a release.
    struct ReleaseEntrySize: Sendable, Encodable {
        let version: Int64
        let size: Int64
        let gzipSize: Int64?
        let brotliSize: Int64?
        let zstdSize: Int64?

        init(_ entry: ReleaseEntry) {
            version = entry.version
            size = entry.size
            gzipSize = entry.gzip?.size
            brotliSize = entry.brotli?.size
            zstdSize = entry.zstd?.size
        }
    }

    struct File: Sendable, Encodable {
        let path: String
        let versions: [FileHistoryEntry]
        /// The kept brotli and zstd variants of its versions' contents, by content.
        let variants: [String: [ContentVariantRecord]]

        init(path: String, versions: [FileHistoryEntry], variants: [String: [ContentVariantRecord]] = [:]) {
            self.path = path
            self.versions = versions
            self.variants = variants
        }

        private enum CodingKeys: String, CodingKey { case path, versions }

        /// The size of the kept `coding` variant of `content`, if there is one.
        func variantSize(_ content: String, _ coding: ContentCoding) -> Int64? {
            variants[content]?.first { $0.coding == coding }?.stored?.size
        }
    }

    /// How many releases the overview lists.
    static let releaseCount = 50

    func overview(role: DashboardRole) async throws -> Overview {
        let keyID = signer.keys.isEmpty ? nil : signer.keys.map { ChannelSigner.keyID(of: $0.publicKey) }.joined(separator: ", ")
        var channels: [Channel] = []
        for state in try await ReleaseStore(catalog).channels() {
            let target = try await ReleaseStore(catalog).rollbackTarget(of: state.name)
            channels.append(
                Channel(
                    name: state.name,
                    release: state.release,
                    since: HTTPDate(secondsSince1970: state.updatedAt).imfFixdate,
                    serial: state.serial,
                    signedBy: keyID,
                    rollingOut: state.rollout.map {
                        "rolling out #\($0.releaseNumber.map(String.init) ?? "?") to \($0.percent)% (\($0.state.rawValue))"
                    },
                    rollbackConfirm: target.map { target in
                        if let rollout = state.rollout {
                            return
                                "Roll back the rollout of #\(rollout.releaseNumber ?? 0) on \(state.name): every install back on #\(target.number)?"
                        }
                        return "Roll back \(state.name) from #\(state.release.number) to #\(target.number)?"
                    }
                )
            )
        }
        var rollouts: [RolloutView] = []
        for channel in channels {
            guard let rollout = try await RolloutStore(catalog).rollout(of: channel.name) else { continue }
            rollouts.append(
                RolloutView(
                    rollout,
                    evidence: try await ReportLedger(catalog).gateEvidence(of: rollout),
                    serverMinNetworks: gateNetworks,
                    now: now().secondsSince1970,
                    history: try await ReportLedger(catalog).reportHistory(of: rollout),
                    failureReasons: try await ReportLedger(catalog).failureReasons(of: rollout),
                    channelRelease: channel.release
                )
            )
        }
        // The rollouts under way first, where the operator looks; then the ended ones.
        rollouts.sort { ($0.isLive ? 0 : 1, $0.channel) < ($1.isLive ? 0 : 1, $1.channel) }
        return Overview(
            role: role,
            channels: channels,
            rollouts: rollouts,
            releases: try await ReleaseStore(catalog).releases(limit: Self.releaseCount),
            traffic: trafficNow()
        )
    }

    func trafficNow() -> Traffic {
        Traffic(minutes: traffic.lastHour())
    }

    /// The files `to` adds, changes and removes against `from` (releases by number or id).
    func diff(from: String, to: String) async throws -> Diff? {
        guard let before = try await ReleaseStore(catalog).release(from), let after = try await ReleaseStore(catalog).release(to) else { return nil }
        let diff = try await ReleaseStore(catalog).diff(from: before, to: after)
        return Diff(
            from: before,
            to: after,
            added: diff.added.map { .init(path: $0.path, before: nil, after: .init($0)) },
            // By content: a new version of the same bytes (a path deleted and published again)
            // is no change to show.
            changed: diff.changed.filter { $0.before.sha256 != $0.after.sha256 }.map {
                .init(path: $0.after.path, before: .init($0.before), after: .init($0.after))
            },
            removed: diff.removed.map { .init(path: $0.path, before: .init($0), after: nil) }
        )
    }

    /// How many audit records the dashboard's page lists.
    static let auditCount = 200

    /// The newest audit records, of `channel` and `token` when given.
    func audit(channel: String?, token: String?) async throws -> [AuditRecord] {
        try await AuditLog(catalog).auditRecords(channel: channel, token: token, limit: Self.auditCount)
    }

    func file(path: String) async throws -> File {
        let versions = try await ReleaseStore(catalog).fileHistory(path: path)
        return File(path: path, versions: versions, variants: try await BlobIndex(catalog).contentVariants(of: versions.map(\.version.sha256)))
    }
}
