extension ConfigurationKey {
    /// The keys of tokens, publishing, signing, rollouts, reports and the dashboard, in the order the reference lists them.
    static let publishing: [ConfigurationKey] = [
        .init(
            "access.tokens",
            .stringArray,
            secret: true,
            default: "none",
            "named tokens and what each may do, an entry a token: `name=ci publish=beta+nightly read token=…` ([Tokens and",
            "scopes](operators.md#tokens-and-scopes); `DEPOT_ACCESS_TOKENS=entry,entry`)"
        ),
        .init(
            "publish.tokens",
            .stringArray,
            secret: true,
            default: "none",
            "unnamed tokens that may do everything (`DEPOT_PUBLISH_TOKENS=a,b`), named `publish-token`, `publish-token-2`…",
            "in the audit trail; with no token at all the API is off"
        ),
        .init("publish.tokenFile", .string, default: "none", "file with more such tokens, one a line"),
        .init("publish.maxUploadBytes", .int, default: "4 GiB", "largest upload accepted (413 above)"),
        .init("publish.keepVersions", .int, default: "`5`", "versions kept per path"),
        .init(
            "publish.keepReleases",
            .int,
            default: "`20`",
            "per channel, how many releases of its rollback history are kept, its own among them (what its document names,",
            "fallbacks included, is kept too, however old; `depot release promote` can return to any kept one); other",
            "channels' commits never count; the others are retired, then removed with the pages only they list after",
            "`publish.retiredGraceSeconds`"
        ),
        .init("publish.retiredGraceSeconds", .number, default: "`600`", "how long retired versions stay downloadable"),
        .init("publish.collectionIntervalSeconds", .number, default: "`60`", "how often retired versions and unreferenced blobs are removed"),
        .init(
            "publish.uploadLifetimeSeconds",
            .number,
            default: "`86400`",
            "how long content uploaded by `PUT /v1/blobs/…` waits for a release to name it"
        ),
        .init("publish.maxCommitBytes", .int, default: "64 MiB", "largest `POST /v1/releases` body (413 above)"),
        .init(
            "publish.maxMissingHashes",
            .int,
            default: "`100000`",
            "most hashes one `POST /v1/blobs/missing` asks about (413 above; `depot publish` asks 5,000 at a time)"
        ),
        .init(
            "publish.maxBatchBlobBytes",
            .int,
            default: "1 MiB",
            "largest blob of a batch (`POST /v1/blobs`; 400 above); larger ones are uploaded alone"
        ),
        .init("publish.maxBatchBlobs", .int, default: "`10000`", "most blobs one batch holds (400 above; `depot publish` sends at most 4,096)"),
        .init(
            "publish.maxBatchBytes",
            .int,
            default: "64 MiB",
            "largest batch body (413 above; `depot publish` sends about 8 MiB); each of its blobs is also held to",
            "`publish.maxUploadBytes` (413)"
        ),
        .init(
            "channels.signingKeyFile",
            .string,
            default: "none",
            "the Ed25519 private key (`depot keygen`) that signs channel documents; none: unsigned"
        ),
        .init(
            "channels.signingKeyFiles",
            .stringArray,
            default: "none",
            "more channel keys; under a root, the keys its channel role lists sign, and there must be as many as its",
            "threshold"
        ),
        .init(
            "channels.rootDirectory",
            .string,
            default: "none",
            "the folder of signed roots, `1.root.json`, `2.root.json`… (`depot root`), served at `/roots/{n}.json`;",
            "documents are signed under the newest; none: no root"
        ),
        .init(
            "channels.validitySeconds",
            .number,
            default: "`604800`",
            "how long a signed channel document is valid; it is re-signed every half of it"
        ),
        .init(
            "rollouts.tickSeconds",
            .number,
            default: "`10`",
            "how often the gates of running rollouts are weighed: a failing release is halted at most this long after its",
            "reports arrive"
        ),
        .init("reports.maxBodyBytes", .int, default: "64 KiB", "largest `POST /v1/reports` body (413 above)"),
        .init("reports.maxPerRequest", .int, default: "`100`", "most reports one request carries (413 above; clients send at most 100)"),
        .init(
            "reports.perAddressPerSecond",
            .int,
            default: "`20`",
            "report requests a second from one client address, an IPv6 address's /64 counted as one (429 beyond); behind a",
            "proxy, the forwarded client's address when the proxy is in `http.trustedProxies`"
        ),
        .init(
            "reports.maxPending",
            .int,
            default: "`100000`",
            "reports taken and not yet counted, at most (503 beyond): memory stays bounded under any load"
        ),
        .init(
            "reports.flushSeconds",
            .number,
            default: "`1`",
            "how often taken reports are counted into the catalog, in one transaction (a crash loses at most this much)"
        ),
        .init(
            "reports.installsPerNetwork",
            .int,
            default: "`5`",
            "installs one network (an IPv4 /24, an IPv6 /56) counts toward a rollout's step; more are neither kept nor",
            "counted"
        ),
        .init("reports.installsPerStep", .int, default: "`100000`", "installs a rollout's step keeps, at most: the reports' storage is bounded"),
        .init(
            "reports.gateNetworks",
            .int,
            default: "`3`",
            "networks a gate needs: a halt failures from this many, an advance reports from this many; a rollout started",
            "with `--min-networks N` needs N instead (1 for a fleet behind one address: [Rolling out a",
            "release](operators.md#rolling-out-a-release), \"Networks\")"
        ),
        .init("dashboard.enabled", .bool, default: "`false`", "serve the operator's dashboard at `/dashboard/` and its admin API at `/v1/admin/…`"),
        .init(
            "dashboard.readTokens",
            .stringArray,
            secret: true,
            default: "none",
            "unnamed tokens with the `read` scope only (`DEPOT_DASHBOARD_READ_TOKENS=a,b`); any token with `read` may read",
            "the dashboard, and gets the buttons its scopes allow"
        ),
        .init(
            "dashboard.allowedAddresses",
            .stringArray,
            default: "`127.0.0.1`, `::1`",
            "who may read the dashboard without a token (read-only; \"sign in\" asks for a token). A request that came",
            "through a proxy not in `http.trustedProxies` (it carries `X-Forwarded-For`, `Forwarded` or `X-Real-IP`) never",
            "qualifies: behind the shipped nginx site every client needs a token, unless nginx's address is trusted, and",
            "then the forwarded client's address is judged. `metrics.allowedAddresses` follows the same rule"
        ),
    ]
}
