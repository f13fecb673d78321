import Configuration
import DepotHTTP
import DepotStore

extension ServerConfiguration {
    /// Reads the configuration. Every key, its type and default:
    ///
    /// | key | type | default | meaning |
    /// |---|---|---|---|
    /// | `http.host` | string | `127.0.0.1` | address to listen on |
    /// | `http.port` | int | `8080` | port to listen on (0: any free port) |
    /// | `http.serverName` | string | none | `Server` field value |
    /// | `public.path` | string | `public` | folder served as it is |
    /// | `public.rescanInterval` | number | `2` | seconds between checks for changed files; 0 disables |
    /// | `public.cacheControl` | string | `no-cache` | `Cache-Control` of public files; empty sends none |
    /// | `public.cacheControlRules` | string array | none | `PREFIX=VALUE` overrides by path prefix |
    /// | `data.path` | string | `data` | data folder |
    /// | `ranges.maxCount` | int | `200` | most ranges in one request before it is served whole |
    /// | `gzip.level` | int | `6` | zlib level of gzip variants, 1–9 |
    /// | `gzip.minimumSavings` | number | `0.05` | fraction a gzip variant must save to be kept |
    ///
    /// - Throws: ``ConfigurationError`` for a value out of range.
    public init(reader: ConfigReader) throws {
        let defaults = ServerConfiguration()
        let port = reader.int(forKey: "http.port", default: defaults.port)
        guard (0...65535).contains(port) else { throw ConfigurationError("http.port must be between 0 and 65535, not \(port)") }
        let rescan = reader.number(forKey: "public.rescanInterval", default: 2)
        guard rescan >= 0 else { throw ConfigurationError("public.rescanInterval must not be negative") }
        let maxRanges = reader.int(forKey: "ranges.maxCount", default: defaults.rangeLimits.maxRanges)
        guard maxRanges >= 1 else { throw ConfigurationError("ranges.maxCount must be at least 1") }
        let level = reader.int(forKey: "gzip.level", default: defaults.store.gzipLevel)
        guard (1...9).contains(level) else { throw ConfigurationError("gzip.level must be between 1 and 9, not \(level)") }
        let savings = reader.number(forKey: "gzip.minimumSavings", default: defaults.store.gzipMinimumSavings)
        guard (0..<1).contains(savings) else { throw ConfigurationError("gzip.minimumSavings must be at least 0 and below 1") }
        let cacheControl = reader.string(forKey: "public.cacheControl", default: "no-cache")

        self.init(
            host: reader.string(forKey: "http.host", default: defaults.host),
            port: port,
            serverName: reader.string(forKey: "http.serverName"),
            publicDirectory: reader.string(forKey: "public.path", default: defaults.publicDirectory),
            dataDirectory: reader.string(forKey: "data.path", default: defaults.dataDirectory),
            publicRescanInterval: rescan > 0 ? .milliseconds(Int64(rescan * 1000)) : nil,
            publicCacheControl: try CacheControlPolicy(
                defaultValue: cacheControl.isEmpty ? nil : cacheControl,
                rules: reader.stringArray(forKey: "public.cacheControlRules", default: [])
            ),
            rangeLimits: RangeLimits(maxRanges: maxRanges),
            store: BlobStoreConfiguration(gzipLevel: level, gzipMinimumSavings: savings)
        )
    }
}
