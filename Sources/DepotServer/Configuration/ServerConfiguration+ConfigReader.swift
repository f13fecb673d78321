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
    /// | `publish.tokens` | string array, secret | none | bearer tokens that may publish |
    /// | `publish.tokenFile` | string | none | file with more tokens, one a line |
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
    /// | `deltas.previousVersions` | int | `3` | previous versions a patch is made from; 0 disables deltas |
    /// | `deltas.maximumRatio` | number | `0.5` | largest patch kept, as a fraction of the full (gzip) download |
    /// | `deltas.indexStep` | int | `8` | encoder index density: 4 makes smaller patches of rebuilt files with more memory |
    /// | `deltas.packSections` | bool | `true` | patch sections packed with LZMA as xdelta3 does (smaller; plain RFC 3284 decoders cannot read them) |
    /// | `deltas.maximumSourceBytes` | int | 1 GiB | largest earlier version a patch is made from (at most 4 GiB − 2) |
    /// | `deltas.maximumBaseTags` | int | `8` | most `If-None-Match` tags of an RFC 3229 request looked up as patch bases |
    /// | `files.cacheControl` | string | `no-cache` | `Cache-Control` of `/files/…` |
    /// | `channels.cacheControl` | string | `no-cache` | `Cache-Control` of `/channels/…` and `/manifest.json` |
    /// | `blobs.cacheControl` | string | `public, max-age=31536000, immutable` | `Cache-Control` of `/blobs/…` |
    ///
    /// - Throws: ``ConfigurationError`` for a value out of range.
    public init(reader: ConfigReader) throws {
        let defaults = ServerConfiguration()
        let port = reader.int(forKey: "http.port", default: defaults.port)
        guard (0...65535).contains(port) else { throw ConfigurationError("http.port must be between 0 and 65535, not \(port)") }
        let rescan = reader.number(forKey: "public.rescanInterval", default: (defaults.publicRescanInterval ?? .zero) / .seconds(1))
        guard rescan >= 0 else { throw ConfigurationError("public.rescanInterval must not be negative") }
        let maxRanges = reader.int(forKey: "ranges.maxCount", default: defaults.rangeLimits.maxRanges)
        guard maxRanges >= 1 else { throw ConfigurationError("ranges.maxCount must be at least 1") }
        let level = reader.int(forKey: "gzip.level", default: defaults.store.gzipLevel)
        guard (1...9).contains(level) else { throw ConfigurationError("gzip.level must be between 1 and 9, not \(level)") }
        let savings = reader.number(forKey: "gzip.minimumSavings", default: defaults.store.gzipMinimumSavings)
        guard (0..<1).contains(savings) else { throw ConfigurationError("gzip.minimumSavings must be at least 0 and below 1") }
        let cacheControl = reader.string(forKey: "public.cacheControl", default: defaults.publicCacheControl.defaultValue ?? "")
        let memoryCacheBytes = reader.int(forKey: "http.memoryCacheBytes", default: defaults.memoryCacheBytes)
        guard memoryCacheBytes >= 0 else { throw ConfigurationError("http.memoryCacheBytes must not be negative") }
        let resourceCacheEntries = reader.int(forKey: "http.resourceCacheEntries", default: defaults.resourceCacheEntries)
        guard resourceCacheEntries >= 2 else { throw ConfigurationError("http.resourceCacheEntries must be at least 2") }
        let mallocArenas = reader.int(forKey: "memory.mallocArenas", default: defaults.mallocArenas)
        guard mallocArenas >= 0 else { throw ConfigurationError("memory.mallocArenas must not be negative") }
        let headerLimits = ServerConfiguration.HeaderLimits(
            maxFieldBytes: reader.int(forKey: "http.maxHeaderFieldBytes", default: defaults.headerLimits.maxFieldBytes),
            maxListBytes: reader.int(forKey: "http.maxHeaderListBytes", default: defaults.headerLimits.maxListBytes),
            maxFieldCount: reader.int(forKey: "http.maxHeaderFieldCount", default: defaults.headerLimits.maxFieldCount)
        )
        guard headerLimits.maxFieldBytes >= 256, headerLimits.maxListBytes >= 256, headerLimits.maxFieldCount >= 8 else {
            throw ConfigurationError("http.maxHeaderFieldBytes and http.maxHeaderListBytes must be at least 256, http.maxHeaderFieldCount at least 8")
        }
        let connectionDefaults = defaults.connectionLimits
        let connectionLimits = ConnectionLimits(
            idleTimeout: reader.seconds(forKey: "http.idleTimeoutSeconds", default: connectionDefaults.idleTimeout),
            requestHeadTimeout: reader.seconds(forKey: "http.requestHeadTimeoutSeconds", default: connectionDefaults.requestHeadTimeout),
            minimumBodyBytesPerSecond: reader.int(forKey: "http.minimumBodyBytesPerSecond", default: connectionDefaults.minimumBodyBytesPerSecond),
            bodyRateWindow: reader.seconds(forKey: "http.bodyRateWindowSeconds", default: connectionDefaults.bodyRateWindow),
            maxConnections: reader.int(forKey: "http.maxConnections", default: connectionDefaults.maxConnections)
        )
        guard connectionLimits.idleTimeout > .zero, connectionLimits.requestHeadTimeout > .zero, connectionLimits.bodyRateWindow > .zero,
            connectionLimits.minimumBodyBytesPerSecond >= 0, connectionLimits.maxConnections >= 1
        else {
            throw ConfigurationError(
                "http.idleTimeoutSeconds, http.requestHeadTimeoutSeconds and http.bodyRateWindowSeconds must be positive, "
                    + "http.minimumBodyBytesPerSecond not negative, http.maxConnections at least 1"
            )
        }
        let openFiles = reader.int(forKey: "http.openFilesPerEventLoop", default: defaults.openFilesPerEventLoop)
        let openFileIdle = reader.seconds(forKey: "http.openFileIdleSeconds", default: defaults.openFileIdleTime)
        guard openFiles >= 0, openFileIdle > .zero else {
            throw ConfigurationError("http.openFilesPerEventLoop must not be negative and http.openFileIdleSeconds must be positive")
        }
        let metricsToken = reader.string(forKey: "metrics.token", isSecret: true)
        if let metricsToken { try BearerAuthenticator.validate(metricsToken, key: "metrics.token") }
        let shutdownGrace = reader.seconds(forKey: "http.shutdownGraceSeconds", default: defaults.shutdownGracePeriod)
        guard shutdownGrace >= .zero else { throw ConfigurationError("http.shutdownGraceSeconds must not be negative") }
        let publish = try PublishConfiguration(reader: reader)
        let cachePolicy = PublishedContent.CachePolicy(
            files: reader.string(forKey: "files.cacheControl", default: defaults.cachePolicy.files ?? "").nonEmpty,
            channels: reader.string(forKey: "channels.cacheControl", default: defaults.cachePolicy.channels ?? "").nonEmpty,
            blobs: reader.string(forKey: "blobs.cacheControl", default: defaults.cachePolicy.blobs ?? "").nonEmpty
        )

        self.init(
            host: reader.string(forKey: "http.host", default: defaults.host),
            port: port,
            serverName: reader.string(forKey: "http.serverName"),
            shutdownGracePeriod: shutdownGrace,
            headerLimits: headerLimits,
            connectionLimits: connectionLimits,
            trustedProxies: Set(reader.stringArray(forKey: "http.trustedProxies", default: Array(defaults.trustedProxies))),
            logsRequests: reader.bool(forKey: "log.requests", default: defaults.logsRequests),
            accessLog: try AccessLogConfiguration(reader: reader),
            directResponses: reader.bool(forKey: "http.directResponses", default: defaults.directResponses),
            memoryCacheBytes: memoryCacheBytes,
            resourceCacheEntries: resourceCacheEntries,
            mallocArenas: mallocArenas,
            openFilesPerEventLoop: openFiles,
            openFileIdleTime: openFileIdle,
            metricsAllowedAddresses: Set(
                reader.stringArray(forKey: "metrics.allowedAddresses", default: Array(defaults.metricsAllowedAddresses).sorted())
            ),
            metricsToken: metricsToken,
            dashboard: try DashboardConfiguration(reader: reader),
            publicDirectory: reader.string(forKey: "public.path", default: defaults.publicDirectory),
            dataDirectory: reader.string(forKey: "data.path", default: defaults.dataDirectory),
            publicRescanInterval: rescan > 0 ? .milliseconds(Int64(rescan * 1000)) : nil,
            publicCacheControl: try CacheControlPolicy(
                defaultValue: cacheControl.nonEmpty,
                rules: reader.stringArray(forKey: "public.cacheControlRules", default: [])
            ),
            rangeLimits: RangeLimits(maxRanges: maxRanges),
            store: BlobStoreConfiguration(gzipLevel: level, gzipMinimumSavings: savings),
            publish: publish,
            cachePolicy: cachePolicy,
            channels: try ChannelSigner(reader: reader)
        )
    }
}

extension AccessLogConfiguration {
    /// Reads the `log.requests*` keys (see ``ServerConfiguration/init(reader:)``).
    init(reader: ConfigReader) throws {
        let defaults = AccessLogConfiguration()
        let formatName = reader.string(forKey: "log.requestsFormat", default: defaults.format.rawValue)
        guard let format = Format(rawValue: formatName) else {
            throw ConfigurationError("log.requestsFormat must be depot or combined, not \(formatName)")
        }
        let bufferBytes = reader.int(forKey: "log.requestsBufferBytes", default: defaults.bufferBytes)
        guard bufferBytes >= AccessLogWriter.flushBytes else {
            throw ConfigurationError("log.requestsBufferBytes must be at least \(AccessLogWriter.flushBytes)")
        }
        let flushInterval = reader.seconds(forKey: "log.requestsFlushSeconds", default: defaults.flushInterval)
        guard flushInterval > .zero else { throw ConfigurationError("log.requestsFlushSeconds must be more than 0") }
        self.init(format: format, path: reader.string(forKey: "log.requestsFile"), bufferBytes: bufferBytes, flushInterval: flushInterval)
    }
}

extension ChannelSigner {
    /// Reads the `channels.*` keys (see ``ServerConfiguration/init(reader:)``).
    init(reader: ConfigReader) throws {
        let validity = reader.number(forKey: "channels.validitySeconds", default: ChannelSigner().validity / .seconds(1))
        guard validity >= 60 else { throw ConfigurationError("channels.validitySeconds must be at least 60") }
        let files = reader.string(forKey: "channels.signingKeyFile").map { [$0] } ?? []
        let keys = try (files + reader.stringArray(forKey: "channels.signingKeyFiles", default: [])).map(Self.readKey(file:))
        let roots = try reader.string(forKey: "channels.rootDirectory").map(Self.readRoots(folder:)) ?? []
        try self.init(keys: keys, roots: roots, validity: .seconds(Int64(validity)))
    }
}

extension PublishConfiguration {
    /// Reads the `publish.*` keys (see ``ServerConfiguration/init(reader:)``).
    init(reader: ConfigReader) throws {
        let defaults = PublishConfiguration()
        var tokens = reader.stringArray(forKey: "publish.tokens", isSecret: true, default: [])
        for token in tokens { try BearerAuthenticator.validate(token, key: "publish.tokens") }
        if let tokenFile = reader.string(forKey: "publish.tokenFile") {
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw ConfigurationError("publish.tokenFile \(tokenFile) cannot be read")
            }
            // One token a line (LF or CRLF); blank lines are skipped. Only ASCII spaces and tabs
            // are trimmed: any other character is the token's own, and checked below.
            let fileTokens = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }
                .filter { !$0.isEmpty }
            guard !fileTokens.isEmpty else { throw ConfigurationError("publish.tokenFile \(tokenFile) holds no token") }
            for token in fileTokens { try BearerAuthenticator.validate(token, key: "publish.tokenFile \(tokenFile)") }
            tokens += fileTokens
        }
        let maxUpload = reader.int(forKey: "publish.maxUploadBytes", default: Int(defaults.maxUploadBytes))
        guard maxUpload >= 1 else { throw ConfigurationError("publish.maxUploadBytes must be at least 1") }
        let keep = reader.int(forKey: "publish.keepVersions", default: defaults.keepVersions)
        guard keep >= 1 else { throw ConfigurationError("publish.keepVersions must be at least 1") }
        let keepReleases = reader.int(forKey: "publish.keepReleases", default: defaults.keepReleases)
        guard keepReleases >= 0 else { throw ConfigurationError("publish.keepReleases must not be negative") }
        let grace = reader.number(forKey: "publish.retiredGraceSeconds", default: defaults.retiredGracePeriod / .seconds(1))
        let interval = reader.number(forKey: "publish.collectionIntervalSeconds", default: defaults.collectionInterval / .seconds(1))
        let uploadLifetime = reader.number(forKey: "publish.uploadLifetimeSeconds", default: defaults.uploadLifetime / .seconds(1))
        let maxCommit = reader.int(forKey: "publish.maxCommitBytes", default: defaults.maxCommitBytes)
        let maxMissing = reader.int(forKey: "publish.maxMissingHashes", default: defaults.maxMissingHashes)
        guard maxMissing >= 1 else { throw ConfigurationError("publish.maxMissingHashes must be at least 1") }
        guard grace >= 0, interval > 0, uploadLifetime > 0, maxCommit >= 1024 else {
            throw ConfigurationError(
                "publish.retiredGraceSeconds must not be negative, publish.collectionIntervalSeconds and publish.uploadLifetimeSeconds "
                    + "must be positive, publish.maxCommitBytes at least 1024"
            )
        }
        let deltaDefaults = defaults.deltas
        let deltas = DeltaConfiguration(
            previousVersions: reader.int(forKey: "deltas.previousVersions", default: deltaDefaults.previousVersions),
            maximumRatio: reader.number(forKey: "deltas.maximumRatio", default: deltaDefaults.maximumRatio),
            indexStep: reader.int(forKey: "deltas.indexStep", default: deltaDefaults.indexStep),
            maximumSourceBytes: Int64(reader.int(forKey: "deltas.maximumSourceBytes", default: Int(deltaDefaults.maximumSourceBytes))),
            packSections: reader.bool(forKey: "deltas.packSections", default: deltaDefaults.packSections),
            maximumBaseTags: reader.int(forKey: "deltas.maximumBaseTags", default: deltaDefaults.maximumBaseTags)
        )
        guard deltas.maximumBaseTags >= 1 else { throw ConfigurationError("deltas.maximumBaseTags must be at least 1") }
        guard deltas.previousVersions >= 0, deltas.maximumRatio > 0, deltas.maximumRatio <= 1, (1...64).contains(deltas.indexStep) else {
            throw ConfigurationError(
                "deltas.previousVersions must not be negative, deltas.maximumRatio must be above 0 and at most 1, deltas.indexStep between 1 and 64"
            )
        }
        guard (0...Int64(VCDIFFEncoder.maximumSourceSize)).contains(deltas.maximumSourceBytes) else {
            throw ConfigurationError("deltas.maximumSourceBytes must be between 0 and \(VCDIFFEncoder.maximumSourceSize)")
        }
        self.init(
            tokens: tokens,
            maxUploadBytes: Int64(maxUpload),
            keepVersions: keep,
            keepReleases: keepReleases,
            retiredGracePeriod: .milliseconds(Int64(grace * 1000)),
            collectionInterval: .milliseconds(Int64(interval * 1000)),
            uploadLifetime: .milliseconds(Int64(uploadLifetime * 1000)),
            maxCommitBytes: maxCommit,
            maxMissingHashes: maxMissing,
            deltas: deltas
        )
    }
}

extension String {
    /// `nil` for the empty string: an empty setting means "send no such field".
    var nonEmpty: String? { isEmpty ? nil : self }
}

extension DashboardConfiguration {
    /// Reads the `dashboard.*` keys (see ``ServerConfiguration/init(reader:)``).
    init(reader: ConfigReader) throws {
        let defaults = DashboardConfiguration()
        let readTokens = reader.stringArray(forKey: "dashboard.readTokens", isSecret: true, default: [])
        for token in readTokens { try BearerAuthenticator.validate(token, key: "dashboard.readTokens") }
        self.init(
            enabled: reader.bool(forKey: "dashboard.enabled", default: defaults.enabled),
            readTokens: readTokens,
            allowedAddresses: Set(reader.stringArray(forKey: "dashboard.allowedAddresses", default: Array(defaults.allowedAddresses).sorted()))
        )
    }
}
