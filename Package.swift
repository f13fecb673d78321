// swift-tools-version:6.2
import Foundation
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The tests' own code is not optimised, even in a release build: the release pass exists to
/// run them against Depot's optimised modules, and optimising twelve thousand lines of tests
/// cost CI minutes for nothing. (Test targets are in no product: a package that depends on
/// Depot never builds them.)
let testSwiftSettings: [SwiftSetting] = swiftSettings + [.unsafeFlags(["-Onone"], .when(configuration: .release))]

/// Every `NNNN_name.sql` file of `migrations/`, in order. SwiftPM caches this manifest by its
/// text, so adding a migration means editing this file: the newest is 0015_page_packs.sql.
let migrationFiles: [String] = {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("migrations")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".sql") }.sorted()
}()

/// A target of the client's package (Client/): DepotClient and the pure rules it shares.
func client(_ name: String) -> Target.Dependency { .product(name: name, package: "Client") }

let package = Package(
    name: "depot",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "depot", targets: ["depot"]),
        .executable(name: "depot-catalog-example", targets: ["CatalogExample"]),
        .executable(name: "depot-fleet", targets: ["DepotFleet"]),
        .library(name: "DepotStore", targets: ["DepotStore"]),
        .library(name: "DepotServer", targets: ["DepotServer"]),
    ],
    dependencies: [
        .package(path: "Client"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-http-structured-headers.git", from: "1.7.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
    ],
    targets: [
        // The catalog's numbered SQL migrations, embedded in the binary.
        .target(
            name: "DepotMigrations",
            path: "migrations",
            resources: migrationFiles.map { .embedInCode($0) },
            swiftSettings: swiftSettings
        ),
        // liblzma (XZ Utils), as the server packs patches with it; the client decodes them by
        // itself (DepotDelta's LZMA2Decoder) and does not link it.
        .systemLibrary(name: "CLzma", providers: [.apt(["liblzma-dev"])]),
        // The catalog and its releases, the content-addressed blob store, hashing and gzip
        // variants, patches, the scanned `public/` folder.
        // The folder of plain files an export and a mirror write: durable placements, atomic
        // replacements, the one order a release is written in.
        .target(
            name: "DepotExport",
            dependencies: [
                client("DepotCodecs"),
                client("DepotFiles"),
                client("DepotManifest"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotStore",
            dependencies: [
                client("DepotPolicy"),
                client("CLinuxCalls"),
                "CLzma",
                client("DepotDelta"),
                client("DepotFiles"),
                client("DepotHTTP"),
                client("DepotManifest"),
                "DepotMigrations",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Hummingbird routes, the representation responder and the server's configuration.
        // The NIO connection layer under Hummingbird: the pipeline, deadlines, backpressure,
        // direct answers, open files and the access log. It knows nothing of the catalog: what
        // to answer directly is a DirectAnswerSource's to say.
        .target(
            name: "DepotConnection",
            dependencies: [
                .product(name: "CLinuxCalls", package: "Client", condition: .when(platforms: [.linux])),
                client("DepotHTTP"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotServer",
            dependencies: [
                client("DepotCodecs"),
                "DepotExport",
                client("DepotPolicy"),
                "DepotConnection",
                client("DepotAPI"),
                .product(name: "CLinuxCalls", package: "Client", condition: .when(platforms: [.linux])),
                client("DepotDelta"),
                client("DepotFiles"),
                client("DepotHTTP"),
                "DepotStore",
                client("DepotManifest"),
                client("DepotSigning"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                "DepotMigrations",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The dashboard's style and script, plain files built into the binary.
            resources: [
                .embedInCode("Dashboard/dashboard.css"), .embedInCode("Dashboard/dashboard.js"),
                .embedInCode("Dashboard/Templates/layout.mustache"), .embedInCode("Dashboard/Templates/overview.mustache"),
                .embedInCode("Dashboard/Templates/traffic.mustache"), .embedInCode("Dashboard/Templates/diff.mustache"),
                .embedInCode("Dashboard/Templates/file.mustache"), .embedInCode("Dashboard/Templates/rollouts.mustache"),
                .embedInCode("Dashboard/Templates/audit.mustache"),
            ],
            swiftSettings: swiftSettings
        ),
        // What `depot publish` works out before it sends anything: the files of a tree, their
        // SHA-256 (read again only when their status changed: the publish index) and the commit.
        .target(
            name: "DepotPublisher",
            dependencies: [
                .product(name: "CLinuxCalls", package: "Client", condition: .when(platforms: [.linux])),
                client("DepotAPI"),
                client("DepotFiles"),
                client("DepotHTTP"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Every `depot` command, run in a CommandEnvironment: the binary's, or a test's in process.
        .target(
            name: "DepotCommands",
            dependencies: [
                client("DepotConcurrency"),
                "DepotExport",
                client("DepotPolicy"),
                client("DepotAPI"),
                "DepotPublisher",
                "DepotServer",
                client("DepotClient"),
                client("DepotDelta"),
                client("DepotFiles"),
                client("DepotHTTP"),
                client("DepotManifest"),
                client("DepotSigning"),
                "DepotStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The binary: the NIO loop count, then the command line (DepotCommandLine).
        .executableTarget(
            name: "depot",
            dependencies: ["DepotCommands", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: swiftSettings
        ),
        // An app as Depot's users write one: its SQLite catalog open, releases applied between
        // two queries (README, "Check, download, apply").
        .executableTarget(
            name: "CatalogExample",
            dependencies: [
                client("DepotClient"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // `depot-fleet`: up to a million simulated installs polling through real caches, on the
        // client's own rules (scripts/bench-fleet).
        .executableTarget(
            name: "DepotFleet",
            dependencies: [
                client("DepotAPI"),
                client("DepotClient"),
                client("DepotHTTP"),
                client("DepotManifest"),
                client("DepotPolicy"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Benchmarks/DepotFleet",
            swiftSettings: swiftSettings
        ),
        // Child processes for tests, and (re-exported) the client package's fixtures: content,
        // digests, temporary folders. No server, so the pure modules' tests do not build one.
        .target(
            name: "DepotTestFixtures",
            dependencies: [
                .product(name: "CLinuxCalls", package: "Client", condition: .when(platforms: [.linux])),
                client("DepotFixtures"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: testSwiftSettings
        ),
        // What the socket tests share: a live server, a raw HTTP/1.1 connection, curl, nginx.
        .target(
            name: "DepotTestSupport",
            dependencies: [
                client("DepotAPI"),
                // Its in-process servers answer DepotClient's requests (InProcessURLProtocol).
                client("DepotClient"),
                "DepotCommands",
                "DepotConnection",
                client("DepotHTTP"),
                "DepotServer",
                "DepotTestFixtures",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // A router test channel with a peer's address (PeerApplication).
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: testSwiftSettings
        ),
        // The publisher's decisions (index, commit plan, tree walk), tested without a server.
        .testTarget(
            name: "DepotPublisherTests",
            dependencies: [client("DepotAPI"), "DepotPublisher", "DepotTestFixtures"],
            swiftSettings: testSwiftSettings
        ),
        // The client's decisions, tested without building the server.
        .testTarget(
            name: "DepotFilesTests",
            dependencies: [client("DepotFiles"), "DepotTestFixtures"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DepotClientTests",
            dependencies: [
                client("DepotCodecs"),
                client("DepotAPI"),
                client("DepotClient"),
                client("DepotFiles"),
                client("DepotHTTP"),
                client("DepotManifest"),
                client("DepotSigning"),
                "DepotServer",
                "DepotStore",
                "DepotTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: testSwiftSettings
        ),
        // The repository's own checks (sizes, table owners, file operations, client symbols, layout literals, leftovers).
        .testTarget(
            name: "DepotRepositoryTests",
            dependencies: ["DepotTestSupport"],
            swiftSettings: testSwiftSettings
        ),
        // Every suite that starts a live server, nginx or spawns `depot` (`scripts/lib/test-tiers`
        // holds every other target to that, and these to 20 files), by what it exercises: the
        // shipped deployment (Deploy/), the server's connection layer (Server/), the client on a
        // real socket (Client/), the `depot` process (CLI/: kills, memory, system calls, signals).
        .testTarget(
            name: "DepotEndToEndTests",
            dependencies: [
                "CatalogExample",
                "depot",
                "DepotConnection",
                "DepotServer",
                "DepotTestSupport",
                "DepotTestFixtures",
                client("DepotAPI"),
                client("DepotClient"),
                client("DepotHTTP"),
                client("DepotManifest"),
                client("DepotPolicy"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["Deploy/Browser"],  // the browser test's Playwright script, run by DashboardBrowserTests
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DepotStoreTests",
            dependencies: [
                client("DepotPolicy"),
                client("DepotDelta"),
                client("DepotFiles"),
                client("DepotHTTP"),
                client("DepotManifest"),
                "DepotStore",
                "DepotTestFixtures",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                "DepotMigrations",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DepotCLITests",
            dependencies: [
                "DepotCommands", client("DepotAPI"), client("DepotClient"), client("DepotManifest"), "DepotPublisher",
                client("DepotSigning"), "DepotTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DepotExportTests",
            dependencies: [
                "DepotExport", client("DepotFiles"), client("DepotManifest"), "DepotTestFixtures",
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DepotCodecsTests",
            dependencies: [client("DepotCodecs"), "DepotTestFixtures"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DepotDeltaTests",
            dependencies: [client("DepotDelta"), "DepotTestFixtures"],
            exclude: ["Corpus"],  // read from the source tree, and by scripts/fuzz delta
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DepotConnectionTests",
            dependencies: [
                "DepotConnection",
                client("DepotHTTP"),
                "DepotTestFixtures",  // a temporary folder: the light fixtures, not the server
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DepotServerTests",
            dependencies: [
                client("DepotCodecs"),
                "DepotConnection",
                client("DepotAPI"),
                client("DepotDelta"),
                client("DepotHTTP"),
                "DepotServer",
                "DepotStore",
                "DepotTestSupport",
                "DepotMigrations",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: testSwiftSettings
        ),
    ]
)
