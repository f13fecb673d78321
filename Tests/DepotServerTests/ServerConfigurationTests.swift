import Configuration
import DepotCodecs
import DepotConnection
import DepotHTTP
import DepotServer
import DepotStore
import DepotTestSupport
import Foundation
import Testing

/// Reading `ServerConfiguration` from swift-configuration, and per-prefix Cache-Control.
@Suite("Server configuration")
struct ServerConfigurationTests {
    static func reader(_ values: [AbsoluteConfigKey: ConfigValue]) -> ConfigReader {
        ConfigReader(provider: InMemoryProvider(values: values))
    }

    @Test("defaults")
    func defaults() throws {
        let configuration = try ServerConfiguration(reader: Self.reader([:]))
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.publicDirectory == "public")
        #expect(configuration.dataDirectory == "data")
        #expect(configuration.publicRescanInterval == .seconds(2))
        #expect(configuration.publicCacheControl.value(for: "a.txt") == "no-cache")
        #expect(configuration.rangeLimits.maxRanges == 200)
        #expect(configuration.store.gzipLevel == 6)
        #expect(configuration.openFilesPerEventLoop == 64)
        #expect(configuration.openFileIdleTime == .seconds(10))
    }

    /// The reader takes each default from `ServerConfiguration()`, so the two cannot drift.
    @Test("an empty configuration reads as ServerConfiguration()'s defaults, setting by setting")
    func defaultsFromOnePlace() throws {
        let read = try ServerConfiguration(reader: Self.reader([:]))
        let made = ServerConfiguration()
        func settings(_ c: ServerConfiguration) -> [String] {
            [
                "\(c.host):\(c.port) \(c.serverName ?? "-") \(c.shutdownGracePeriod) \(c.headerLimits) \(c.connectionLimits)",
                "\(c.trustedProxies.sorted()) \(c.logsRequests) \(c.directResponses) \(c.memoryCacheBytes) \(c.resourceCacheEntries)",
                "\(c.mallocArenas) \(c.openFilesPerEventLoop) \(c.openFileIdleTime) \(c.metricsAllowedAddresses.sorted()) \(c.metricsToken ?? "-")",
                "\(c.publicDirectory) \(c.dataDirectory) \(String(describing: c.publicRescanInterval)) \(c.publicCacheControl.defaultValue ?? "-")",
                "\(c.rangeLimits.maxRanges) \(c.store.gzipLevel) \(c.store.gzipMinimumSavings)",
                "\(c.publish.maxUploadBytes) \(c.publish.keepVersions) \(c.publish.keepReleases) \(c.publish.retiredGracePeriod)",
                "\(c.publish.collectionInterval) \(c.publish.uploadLifetime) \(c.publish.maxCommitBytes) \(c.publish.deltas)",
                "\(c.cachePolicy.files ?? "-") \(c.cachePolicy.channels ?? "-") \(c.cachePolicy.blobs ?? "-") \(c.channels.validity)",
                "\(c.variants)",
            ]
        }
        #expect(settings(read) == settings(made))
    }

    @Test("every key is read")
    func keys() throws {
        let configuration = try ServerConfiguration(
            reader: Self.reader([
                "http.host": "0.0.0.0", "http.port": 9000, "http.serverName": "depot-mirror", "public.path": "site", "data.path": "/var/lib/depot",
                "public.cacheControl": "", "public.cacheControlRules": .init(.stringArray(["a/=max-age=60"]), isSecret: false),
                "ranges.maxCount": 5, "gzip.level": 9, "gzip.minimumSavings": 0.2,
                "public.rescanInterval": 0, "http.openFilesPerEventLoop": 0, "http.openFileIdleSeconds": 2.5,
                "http.resourceCacheEntries": 100, "publish.keepReleases": 3, "memory.mallocArenas": 0,
            ])
        )
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9000)
        #expect(configuration.serverName == "depot-mirror")
        #expect(configuration.publicDirectory == "site")
        #expect(configuration.dataDirectory == "/var/lib/depot")
        #expect(configuration.publicRescanInterval == nil)
        #expect(configuration.publicCacheControl.value(for: "b.txt") == nil)
        #expect(configuration.publicCacheControl.value(for: "a/b.txt") == "max-age=60")
        #expect(configuration.rangeLimits.maxRanges == 5)
        #expect(configuration.store.gzipLevel == 9)
        #expect(configuration.store.gzipMinimumSavings == 0.2)
        #expect(configuration.openFilesPerEventLoop == 0)
        #expect(configuration.openFileIdleTime == .milliseconds(2500))
        #expect(configuration.resourceCacheEntries == 100)
        #expect(configuration.publish.keepReleases == 3)
        #expect(configuration.mallocArenas == 0)
    }

    @Test(
        "values out of range are refused with the key's name",
        arguments: [
            ("http.port", ConfigValue(.int(-1), isSecret: false)), ("ranges.maxCount", ConfigValue(.int(0), isSecret: false)),
            ("gzip.level", ConfigValue(.int(10), isSecret: false)), ("gzip.minimumSavings", ConfigValue(.double(1), isSecret: false)),
            ("public.rescanInterval", ConfigValue(.double(-1), isSecret: false)),
            ("http.openFilesPerEventLoop", ConfigValue(.int(-1), isSecret: false)),
            ("http.openFileIdleSeconds", ConfigValue(.double(0), isSecret: false)),
            ("http.resourceCacheEntries", ConfigValue(.int(1), isSecret: false)),
            ("publish.keepReleases", ConfigValue(.int(-1), isSecret: false)),
            ("memory.mallocArenas", ConfigValue(.int(-1), isSecret: false)),
            ("public.cacheControlRules", ConfigValue(.stringArray(["no-equals-sign"]), isSecret: false)),
            ("deltas.distances", ConfigValue(.intArray([1, 0]), isSecret: false)),
            ("deltas.previousVersions", ConfigValue(.int(3), isSecret: false)),
            ("deltas.blockSize", ConfigValue(.int(1000), isSecret: false)),
            ("deltas.blockSize", ConfigValue(.int(65536), isSecret: false)),
            ("deltas.maximumPendingRequests", ConfigValue(.int(0), isSecret: false)),
            ("deltas.blockIndexMinimumBytes", ConfigValue(.int(-1), isSecret: false)),
            ("rollouts.tickSeconds", ConfigValue(.double(0), isSecret: false)),
            ("reports.maxPerRequest", ConfigValue(.int(0), isSecret: false)),
            ("reports.perAddressPerSecond", ConfigValue(.int(0), isSecret: false)),
            ("reports.maxPending", ConfigValue(.int(10), isSecret: false)),
            ("reports.maxBodyBytes", ConfigValue(.int(100), isSecret: false)),
            ("reports.flushSeconds", ConfigValue(.double(0), isSecret: false)),
            ("variants.brotliQuality", ConfigValue(.int(12), isSecret: false)),
            ("variants.brotliWindow", ConfigValue(.int(25), isSecret: false)),
            ("variants.zstdLevel", ConfigValue(.int(20), isSecret: false)),
            ("variants.zstdLongWindow", ConfigValue(.int(9), isSecret: false)),
            ("variants.minimumSavings", ConfigValue(.double(1), isSecret: false)),
            ("variants.minimumBytes", ConfigValue(.int(0), isSecret: false)),
            ("variants.maximumBytes", ConfigValue(.int(100), isSecret: false)),
        ]
    )
    func invalid(key: String, value: ConfigValue) {
        #expect {
            try ServerConfiguration(reader: Self.reader([AbsoluteConfigKey(key.split(separator: ".").map(String.init)): value]))
        } throws: { error in
            (error as? ConfigurationError).map { $0.message.contains(key.split(separator: ".").last!) || $0.message.contains("PREFIX=VALUE") }
                ?? false
        }
    }

    @Test("variants: defaults (brotli q9 w22, zstd 19 long 26, in the background), every key, and off")
    func variants() throws {
        let defaults = try ServerConfiguration(reader: Self.reader([:])).variants
        #expect(defaults.brotli == .init(quality: 9, window: 22) && defaults.zstd == .init(level: 19, longWindow: 26) && defaults.background)
        #expect(defaults.minimumSavings == 0.03 && defaults.minimumBytes == 65537 && defaults.maximumBytes == 256 << 20)
        #expect(defaults.makesVariants(ofSize: 65537) && defaults.makesVariants(ofSize: 256 << 20))
        #expect(!defaults.makesVariants(ofSize: 65536) && !defaults.makesVariants(ofSize: (256 << 20) + 1))
        let read = try ServerConfiguration(
            reader: Self.reader([
                "variants.brotliQuality": 5, "variants.brotliWindow": 20, "variants.zstdLevel": 3, "variants.zstdLongWindow": 0,
                "variants.minimumSavings": 0.1, "variants.minimumBytes": 1000, "variants.background": false,
            ])
        ).variants
        #expect(read.brotli == .init(quality: 5, window: 20) && read.zstd == .init(level: 3, longWindow: nil))
        #expect(read.minimumSavings == 0.1 && read.minimumBytes == 1000 && !read.background)
        let off = try ServerConfiguration(reader: Self.reader(["variants.brotli": false, "variants.zstd": false])).variants
        #expect(off.encodings.isEmpty && !off.makesVariants(ofSize: 1 << 30))
    }

    /// (variant bytes, content bytes, gzip bytes or none) → kept, at the default 3% margin: a
    /// variant is weighed against what a client that cannot decode it takes instead.
    @Test(
        "a variant is kept when it saves the margin against the smaller of gzip and the content",
        arguments: [
            (969, 2000, 1000 as Int64?, true), (972, 2000, 1000, false), (1000, 2000, 1000, false), (1939, 2000, nil, true),
            (1942, 2000, nil, false), (900, 2000, 3000, true), (0, 1, nil, true),
        ] as [(Int64, Int64, Int64?, Bool)]
    )
    func keeps(size: Int64, content: Int64, gzip: Int64?, kept: Bool) {
        #expect(VariantConfiguration().keeps(size: size, contentSize: content, gzipSize: gzip) == kept)
    }

    @Test(
        "whole and fractional numbers are both read",
        arguments: [ConfigValue(.int(3), isSecret: false), ConfigValue(.double(3.0), isSecret: false)]
    )
    func wholeNumbers(value: ConfigValue) throws {
        let configuration = try ServerConfiguration(reader: Self.reader(["public.rescanInterval": value]))
        #expect(configuration.publicRescanInterval == .seconds(3))
    }

    @Test("Cache-Control rules: the longest matching prefix wins")
    func longestPrefix() throws {
        let policy = try CacheControlPolicy(
            defaultValue: "no-cache",
            rules: ["assets/=public, max-age=60", "assets/fonts/=public, max-age=31536000, immutable"]
        )
        #expect(policy.value(for: "index.html") == "no-cache")
        #expect(policy.value(for: "assets/app.js") == "public, max-age=60")
        #expect(policy.value(for: "assets/fonts/a.woff2") == "public, max-age=31536000, immutable")
    }

    static let rules = ["assets/=public, max-age=86400"]

    @Test("per-prefix Cache-Control reaches the answers, on 200 and 304")
    func onTheWire() async throws {
        let configuration = ServerConfiguration(publicCacheControl: try CacheControlPolicy(defaultValue: "no-cache", rules: Self.rules))
        try await InProcessServer.with(configuration: configuration, prepare: Self.folder) { server in
            try await server.connection { connection in
                let asset = try await connection.request("GET", "/assets/app.js")
                #expect(asset.header("Cache-Control") == "public, max-age=86400")
                #expect(asset.header("Content-Type") == "text/javascript; charset=utf-8")
                let revalidated = try await connection.request("GET", "/assets/app.js", headers: [("If-None-Match", asset.header("ETag")!)])
                #expect(revalidated.status == 304)
                #expect(revalidated.header("Cache-Control") == "public, max-age=86400")
                #expect(try await connection.request("GET", "/index.html").header("Cache-Control") == "no-cache")
            }
        }
    }

    static func folder(_ folder: URL) throws {
        try folder.write(Data("console.log(1)\n".utf8), to: "assets/app.js")
        try folder.write(Data("<p>hi</p>\n".utf8), to: "index.html")
    }

    @Test("the reach of deltas: defaults, and every key")
    func deltaReach() throws {
        let defaults = try ServerConfiguration(reader: Self.reader([:])).publish.deltas
        #expect(defaults.distances == [1, 2, 4])
        #expect(defaults.onRequest && defaults.maximumPendingRequests == 16)
        #expect(defaults.blockSize == 1024 && defaults.blockIndexMinimumBytes == 1 << 20)
        let deltas = try ServerConfiguration(
            reader: Self.reader([
                "deltas.distances": ConfigValue(.intArray([1, 3]), isSecret: false), "deltas.onRequest": false,
                "deltas.maximumPendingRequests": 2, "deltas.blockSize": 4096, "deltas.blockIndexMinimumBytes": 0,
            ])
        ).publish.deltas
        #expect(deltas.distances == [1, 3] && !deltas.onRequest && deltas.maximumPendingRequests == 2)
        #expect(deltas.blockSize == 4096 && deltas.blockIndexMinimumBytes == 0)
    }

    @Test("connection limits and the largest patch source: defaults, every key, and refusals")
    func connectionLimits() throws {
        let defaults = try ServerConfiguration(reader: Self.reader([:]))
        #expect(defaults.connectionLimits == ConnectionLimits())
        #expect(defaults.connectionLimits.requestHeadTimeout == .seconds(10))
        #expect(defaults.publish.deltas.maximumSourceBytes == 1 << 30)
        let configuration = try ServerConfiguration(
            reader: Self.reader([
                "http.idleTimeoutSeconds": 5, "http.requestHeadTimeoutSeconds": 2.5, "http.minimumBodyBytesPerSecond": 10,
                "http.bodyRateWindowSeconds": 3, "http.maxConnections": 7, "deltas.maximumSourceBytes": 1000,
            ])
        )
        #expect(
            configuration.connectionLimits
                == ConnectionLimits(
                    idleTimeout: .seconds(5),
                    requestHeadTimeout: .milliseconds(2500),
                    minimumBodyBytesPerSecond: 10,
                    bodyRateWindow: .seconds(3),
                    maxConnections: 7
                )
        )
        #expect(configuration.publish.deltas.maximumSourceBytes == 1000)
        for bad: [AbsoluteConfigKey: ConfigValue] in [
            ["http.idleTimeoutSeconds": 0], ["http.requestHeadTimeoutSeconds": -1], ["http.minimumBodyBytesPerSecond": -1],
            ["http.bodyRateWindowSeconds": 0], ["http.maxConnections": 0], ["deltas.maximumSourceBytes": 5_000_000_000],
        ] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try ServerConfiguration(reader: Self.reader(bad)) }
        }
    }
}
