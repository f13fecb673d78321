import Configuration
import Crypto
import DepotConnection
import DepotDelta
import DepotHTTP
import DepotStore
import Foundation

extension ServerConfiguration {
    /// Reads the configuration. Every key, its type and default:
    ///
    /// | key | type | default | meaning |
    /// |---|---|---|---|
    /// | `http.host` | string | `127.0.0.1` | address to listen on |
    /// | `http.port` | int | `8080` | port to listen on (0: any free port) |
    /// | `http.serverName` | string | none | `Server` field value |
    /// | `http.directResponses` | bool | `true` | answer 304s and in-memory content right after the HTTP decoder, below Hummingbird |
    /// | `http.memoryCacheBytes` | int | 16 MiB | bytes of small files (≤ 64 KiB) held in memory, for public and published files each; 0 disables |
    /// | `http.resourceCacheEntries` | int | `8192` | resources of published content kept after a request read them from the catalog; at least 2 |
    /// | `memory.mallocArenas` | int | `2` | glibc malloc arenas the server allows; 0: glibc's default (eight a core) |
    /// | `http.openFilesPerEventLoop` | int | `64` | stored files each event loop keeps open between answers; 0 opens one for each answer |
    /// | `http.openFileIdleSeconds` | number | `10` | how long an unused file stays open, at least (at most twice as long) |
    /// | `http.shutdownGraceSeconds` | number | `30` | how long downloads may finish after SIGTERM |
    /// | `http.maxHeaderFieldBytes` | int | 81920 | largest request header field line |
    /// | `http.maxHeaderListBytes` | int | 81920 | largest request header block |
    /// | `http.maxHeaderFieldCount` | int | 1000 | most request header field lines |
    /// | `http.trustedProxies` | string array | none | proxy addresses whose X-Forwarded-For/-Proto are believed |
    /// | `http.idleTimeoutSeconds` | number | `75` | a keep-alive connection with no request in progress is closed after this |
    /// | `http.requestHeadTimeoutSeconds` | number | `10` | a request head must arrive whole within this of its first byte |
    /// | `http.minimumBodyBytesPerSecond` | int | `1024` | slowest request body accepted, averaged over `http.bodyRateWindowSeconds` |
    /// | `http.bodyRateWindowSeconds` | number | `20` | the span the body rate is averaged over |
    /// | `http.maxConnections` | int | `10000` | most connections open at once; more wait in the listen backlog |
    /// | `log.requests` | bool | `true` | one access-log line a request, when its response ends |
    /// | `log.requestsFormat` | string | `depot` | `depot` (key=value) or `combined` (NCSA combined) |
    /// | `log.requestsFile` | string | none | file the lines are appended to; none: standard output |
    /// | `log.requestsBufferBytes` | int | 1 MiB | lines held before they are written; more are dropped and counted; at least 64 KiB |
    /// | `log.requestsFlushSeconds` | number | `0.5` | how long a line may wait in the buffer; more than 0 |
    /// | `metrics.allowedAddresses` | string array | `127.0.0.1`, `::1` | who may read `/metrics` without a token |
    /// | `metrics.token` | string, secret | none | bearer token for `/metrics`, then required from every address |
    /// | `dashboard.enabled` | bool | `false` | serve the operator's dashboard (`/dashboard/`) and its admin API (`/v1/admin/…`) |
    /// | `dashboard.readTokens` | string array, secret | none | tokens that may read the dashboard; publish tokens may also use its buttons |
    /// | `dashboard.allowedAddresses` | string array | `127.0.0.1`, `::1` | who may read the dashboard without a token |
    /// | `public.path` | string | `public` | folder served as it is |
    /// | `public.rescanInterval` | number | `2` | seconds between checks for changed files; 0 disables |
    /// | `public.cacheControl` | string | `no-cache` | `Cache-Control` of public files; empty sends none |
    /// | `public.cacheControlRules` | string array | none | `PREFIX=VALUE` overrides by path prefix |
    /// | `data.path` | string | `data` | data folder |
    /// | `ranges.maxCount` | int | `200` | most ranges in one request before it is served whole |
    /// | `gzip.level` | int | `6` | zlib level of gzip variants, 1–9 |
    /// | `gzip.minimumSavings` | number | `0.05` | fraction a gzip variant must save to be kept |
    /// | `variants.brotli` | bool | `true` | make brotli variants (`/blobs/{sha256}.br`) |
    /// | `variants.brotliQuality` | int | `9` | brotli quality, 0–11 |
    /// | `variants.brotliWindow` | int | `22` | brotli window, base-2 logarithm, 10–24 |
    /// | `variants.zstd` | bool | `true` | make zstd variants (`/blobs/{sha256}.zst`) |
    /// | `variants.zstdLevel` | int | `19` | zstd level, 1–19 |
    /// | `variants.zstdLongWindow` | int | `26` | zstd long-distance window, base-2 logarithm, 10–27; 0: none |
    /// | `variants.minimumSavings` | number | `0.03` | fraction a variant must save against the gzip variant (or the content) to be kept |
    /// | `variants.minimumBytes` | int | 65537 | contents smaller than this get no brotli or zstd variant (smaller files travel in packs) |
    /// | `variants.maximumBytes` | int | 256 MiB | contents larger than this get none (making one costs seconds of CPU a megabyte) |
    /// | `variants.background` | bool | `true` | make variants after the commit, in the background; `false`: before it |
    /// | `variants.maximumPending` | int | `1024` | most contents waiting for variants; more are refused (logged, counted) and found again once it drains |
    /// | `access.tokens` | string array, secret | none | named tokens and their scopes: `name=ci publish=beta+nightly read token=…` (SECURITY.md) |
    /// | `publish.tokens` | string array, secret | none | bearer tokens that may do everything (named `publish-token`, `publish-token-2`…) |
    /// | `publish.tokenFile` | string | none | file with more such tokens, one a line |
    /// | `publish.maxUploadBytes` | int | 4 GiB | largest upload accepted |
    /// | `publish.keepVersions` | int | `5` | versions kept per path |
    /// | `publish.keepReleases` | int | `20` | releases kept besides those a channel points to, newest first; at least 0 |
    /// | `publish.retiredGraceSeconds` | number | `600` | how long retired versions and releases stay downloadable |
    /// | `publish.collectionIntervalSeconds` | number | `60` | how often unreferenced blobs are collected |
    /// | `publish.uploadLifetimeSeconds` | number | `86400` | how long an uploaded blob waits for a release commit to name it |
    /// | `publish.maxCommitBytes` | int | 64 MiB | largest release commit body |
    /// | `publish.maxMissingHashes` | int | `100000` | most hashes one `POST /v1/blobs/missing` asks about |
    /// | `channels.signingKeyFile` | string | none | Ed25519 private key (`depot keygen`) that signs channel documents; none: unsigned |
    /// | `channels.signingKeyFiles` | string array | none | more such keys: under a root, as many as its channel threshold |
    /// | `channels.rootDirectory` | string | none | folder of the signed roots, `1.root.json`… (`depot root`); none: no root |
    /// | `channels.validitySeconds` | number | `604800` | how long a signed channel document is valid; re-signed every half of it |
    /// | `rollouts.tickSeconds` | number | `10` | how often running rollouts' gates are looked at |
    /// | `reports.maxBodyBytes` | int | 64 KiB | largest `POST /v1/reports` body |
    /// | `reports.maxPerRequest` | int | `100` | most reports a request carries |
    /// | `reports.perAddressPerSecond` | int | `20` | report requests a second from one client address (429 beyond) |
    /// | `reports.maxPending` | int | `100000` | reports taken and not yet counted (503 beyond) |
    /// | `reports.flushSeconds` | number | `1` | how often taken reports are counted into the catalog |
    /// | `deltas.distances` | int array | `[1, 2, 4]` | earlier versions (counted back) a publish makes patches from; empty: no patches |
    /// | `deltas.onRequest` | bool | `true` | a patch from any other earlier version is made once, when a client first asks |
    /// | `deltas.maximumPendingRequests` | int | `16` | most pairs waiting for an on-request patch (503 beyond) |
    /// | `deltas.blockSize` | int | `1024` | block size of block indexes, a power of two from 512 to 32768 |
    /// | `deltas.blockIndexMinimumBytes` | int | 1 MiB | contents smaller than this get no block index; 0: none at all |
    /// | `deltas.maximumRatio` | number | `0.5` | largest patch kept, as a fraction of the full (gzip) download |
    /// | `deltas.indexStep` | int | `8` | encoder index density: 4 makes smaller patches of rebuilt files with more memory |
    /// | `deltas.packSections` | bool | `true` | patch sections packed with LZMA as xdelta3 does (smaller; plain RFC 3284 decoders cannot read them) |
    /// | `deltas.maximumSourceBytes` | int | 1 GiB | largest earlier version a patch is made from (at most 4 GiB − 2) |
    /// | `deltas.maximumBaseTags` | int | `8` | most `If-None-Match` tags of an RFC 3229 request looked up as patch bases |
    /// | `packs.maximumConcurrent` | int | `2` | page packs made at once, each on a thread of its own (1–64) |
    /// | `packs.maximumQueued` | int | `64` | more pages' packs waiting to be made; beyond, 503 with `Retry-After` |
    /// | `files.cacheControl` | string | `no-cache` | `Cache-Control` of `/files/…` |
    /// | `channels.cacheControl` | string | `no-cache` | `Cache-Control` of `/channels/…` and `/manifest.json` |
    /// | `blobs.cacheControl` | string | `public, max-age=31536000, immutable` | `Cache-Control` of `/blobs/…` |
    ///
    /// - Throws: ``ConfigurationError`` for a value out of range.
    public init(reader: ConfigReader) throws {
        let defaults = ServerConfiguration()
        let http = reader.scoped(to: "http")
        let port = http.int(forKey: "port", default: defaults.port)
        guard (0...65535).contains(port) else { throw ConfigurationError("http.port must be between 0 and 65535, not \(port)") }
        let memoryCacheBytes = http.int(forKey: "memoryCacheBytes", default: defaults.memoryCacheBytes)
        guard memoryCacheBytes >= 0 else { throw ConfigurationError("http.memoryCacheBytes must not be negative") }
        let resourceCacheEntries = http.int(forKey: "resourceCacheEntries", default: defaults.resourceCacheEntries)
        guard resourceCacheEntries >= 2 else { throw ConfigurationError("http.resourceCacheEntries must be at least 2") }
        let openFiles = http.int(forKey: "openFilesPerEventLoop", default: defaults.openFilesPerEventLoop)
        let openFileIdle = http.seconds(forKey: "openFileIdleSeconds", default: defaults.openFileIdleTime)
        guard openFiles >= 0, openFileIdle > .zero else {
            throw ConfigurationError("http.openFilesPerEventLoop must not be negative and http.openFileIdleSeconds must be positive")
        }
        let shutdownGrace = http.seconds(forKey: "shutdownGraceSeconds", default: defaults.shutdownGracePeriod)
        guard shutdownGrace >= .zero else { throw ConfigurationError("http.shutdownGraceSeconds must not be negative") }
        let mallocArenas = reader.int(forKey: "memory.mallocArenas", default: defaults.mallocArenas)
        guard mallocArenas >= 0 else { throw ConfigurationError("memory.mallocArenas must not be negative") }
        let metrics = reader.scoped(to: "metrics")
        let metricsToken = metrics.string(forKey: "token", isSecret: true)
        if let metricsToken { try BearerAuthenticator.validate(metricsToken, key: "metrics.token") }
        let maxRanges = reader.int(forKey: "ranges.maxCount", default: defaults.rangeLimits.maxRanges)
        guard maxRanges >= 1 else { throw ConfigurationError("ranges.maxCount must be at least 1") }
        let publicFolder = reader.scoped(to: "public")
        let rescan = publicFolder.number(forKey: "rescanInterval", default: (defaults.publicRescanInterval ?? .zero) / .seconds(1))
        guard rescan >= 0 else { throw ConfigurationError("public.rescanInterval must not be negative") }
        let cacheControl = publicFolder.string(forKey: "cacheControl", default: defaults.publicCacheControl.defaultValue ?? "")

        self.init(
            host: http.string(forKey: "host", default: defaults.host),
            port: port,
            serverName: http.string(forKey: "serverName"),
            shutdownGracePeriod: shutdownGrace,
            headerLimits: try HeaderLimits(reader: http),
            connectionLimits: try ConnectionLimits(reader: http),
            trustedProxies: Set(http.stringArray(forKey: "trustedProxies", default: Array(defaults.trustedProxies))),
            logsRequests: reader.bool(forKey: "log.requests", default: defaults.logsRequests),
            accessLog: try AccessLogConfiguration(reader: reader.scoped(to: "log")),
            directResponses: http.bool(forKey: "directResponses", default: defaults.directResponses),
            memoryCacheBytes: memoryCacheBytes,
            resourceCacheEntries: resourceCacheEntries,
            mallocArenas: mallocArenas,
            openFilesPerEventLoop: openFiles,
            openFileIdleTime: openFileIdle,
            metricsAllowedAddresses: Set(metrics.stringArray(forKey: "allowedAddresses", default: Array(defaults.metricsAllowedAddresses).sorted())),
            metricsToken: metricsToken,
            dashboard: try DashboardConfiguration(reader: reader.scoped(to: "dashboard")),
            publicDirectory: publicFolder.string(forKey: "path", default: defaults.publicDirectory),
            dataDirectory: reader.string(forKey: "data.path", default: defaults.dataDirectory),
            publicRescanInterval: rescan > 0 ? .milliseconds(Int64(rescan * 1000)) : nil,
            exportDirectory: reader.string(forKey: "export.directory")?.nonEmpty,
            publicCacheControl: try CacheControlPolicy(
                defaultValue: cacheControl.nonEmpty,
                rules: publicFolder.stringArray(forKey: "cacheControlRules", default: [])
            ),
            rangeLimits: RangeLimits(maxRanges: maxRanges),
            store: try BlobStoreConfiguration(reader: reader.scoped(to: "gzip")),
            variants: try VariantConfiguration(reader: reader.scoped(to: "variants")),
            publish: try PublishConfiguration(reader: reader.scoped(to: "publish"), deltas: reader.scoped(to: "deltas")),
            cachePolicy: PublishedContent.CachePolicy(reader: reader),
            channels: try ChannelSigner(reader: reader.scoped(to: "channels")),
            rollouts: try RolloutConfiguration(reader: reader.scoped(to: "rollouts")),
            reports: try ReportConfiguration(reader: reader.scoped(to: "reports"))
        )
        accessTokens = try reader.stringArray(forKey: "access.tokens", isSecret: true, default: []).enumerated().map {
            try AccessToken(entry: $0.element, position: $0.offset + 1)
        }
        try AccessToken.checkDistinct(allTokens)
        packs = try ComputeLimits(reader: reader.scoped(to: "packs"), scope: "packs")
    }
}

extension ServerConfiguration.HeaderLimits {
    /// Reads the `http.maxHeader…` keys from the `http` scope.
    init(reader http: ConfigReader) throws {
        let defaults = Self()
        self.init(
            maxFieldBytes: http.int(forKey: "maxHeaderFieldBytes", default: defaults.maxFieldBytes),
            maxListBytes: http.int(forKey: "maxHeaderListBytes", default: defaults.maxListBytes),
            maxFieldCount: http.int(forKey: "maxHeaderFieldCount", default: defaults.maxFieldCount)
        )
        guard maxFieldBytes >= 256, maxListBytes >= 256, maxFieldCount >= 8 else {
            throw ConfigurationError("http.maxHeaderFieldBytes and http.maxHeaderListBytes must be at least 256, http.maxHeaderFieldCount at least 8")
        }
    }
}

extension BlobStoreConfiguration {
    /// Reads the `gzip.*` keys from the `gzip` scope.
    init(reader gzip: ConfigReader) throws {
        let defaults = Self()
        let level = gzip.int(forKey: "level", default: defaults.gzipLevel)
        guard (1...9).contains(level) else { throw ConfigurationError("gzip.level must be between 1 and 9, not \(level)") }
        let savings = gzip.number(forKey: "minimumSavings", default: defaults.gzipMinimumSavings)
        guard (0..<1).contains(savings) else { throw ConfigurationError("gzip.minimumSavings must be at least 0 and below 1") }
        self.init(gzipLevel: level, gzipMinimumSavings: savings)
    }
}

extension PublishedContent.CachePolicy {
    /// Reads `files.cacheControl`, `channels.cacheControl` and `blobs.cacheControl`.
    init(reader: ConfigReader) {
        let defaults = Self()
        self.init(
            files: reader.string(forKey: "files.cacheControl", default: defaults.files ?? "").nonEmpty,
            channels: reader.string(forKey: "channels.cacheControl", default: defaults.channels ?? "").nonEmpty,
            blobs: reader.string(forKey: "blobs.cacheControl", default: defaults.blobs ?? "").nonEmpty
        )
    }
}

extension String {
    /// `nil` for the empty string: an empty setting means "send no such field".
    var nonEmpty: String? { isEmpty ? nil : self }
}
