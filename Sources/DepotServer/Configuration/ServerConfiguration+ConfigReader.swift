import Configuration
import Crypto
import DepotConnection
import DepotDelta
import DepotHTTP
import DepotStore
import Foundation

extension ServerConfiguration {
    /// Reads the configuration. Every key, its type, default and meaning is in
    /// ``ServerConfiguration/keys`` (and so in `docs/configuration.md`, made from it); a key
    /// read here and not listed there fails `ConfigurationReferenceTests`.
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
