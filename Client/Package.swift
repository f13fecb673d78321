// swift-tools-version:6.0
import PackageDescription

/// DepotClient, the thin client an app adds, and the pure rules it shares with the server: a
/// package of its own so that an app resolves swift-crypto alone (SwiftPM resolves every
/// dependency a package declares), and no API newer than iOS 16 / macOS 13 (scripts/lib/
/// client-symbols checks the sources, since Linux cannot compile for Apple platforms). The
/// server's package (the folder above) depends on this one by path: nothing is written twice.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The targets the server's package uses too.
let shared = [
    "DepotHTTP", "DepotManifest", "DepotAPI", "DepotPolicy", "DepotSigning", "DepotDelta", "DepotFiles", "DepotConcurrency",
    "DepotCodecs", "CLinuxCalls",
]

/// DepotDelta's loops run a hundred times slower unoptimised, too slow for tests: Depot's own
/// builds optimise it in debug too. SwiftPM refuses such a flag in a package an app adds by
/// version (a checkout: `.build/checkouts/`, Xcode's `SourcePackages/checkouts/`), where it is
/// left out and DepotDelta builds as the app's configuration says.
let optimisedInDebug: [SwiftSetting] =
    Context.packageDirectory.contains("/checkouts/") ? [] : [.unsafeFlags(["-O"], .when(configuration: .debug))]

let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")

let package = Package(
    name: "DepotClient",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .visionOS(.v1)],
    products: [
        .library(name: "DepotClient", targets: ["DepotClient"])
        // The rules the server's package shares, one product each so that its targets declare
        // exactly the layers they import; an app needs none of them.
    ] + shared.map { .library(name: $0, targets: [$0]) } + [
        // Test content, digests, temporary folders and a manual clock, for both packages' tests.
        .library(name: "DepotFixtures", targets: ["DepotFixtures"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2")
    ],
    targets: [
        // Pure RFC 9110 logic: validators, dates, preconditions, ranges, content negotiation. No I/O.
        .target(name: "DepotHTTP", swiftSettings: swiftSettings),
        // The manifest document: shared by the server and the client, standard library and
        // DepotHTTP's content codings only.
        .target(name: "DepotManifest", dependencies: ["DepotHTTP"], swiftSettings: swiftSettings),
        // The publisher API's requests and replies (`/v1/…`), as the server writes them and the
        // CLI, the dashboard, the client's reports and tests read them: Codable types, no I/O.
        .target(name: "DepotAPI", swiftSettings: swiftSettings),
        // Pure rules: a rollout's plan and gate, an install's side of a rollout, and what a
        // sync fetches from which copy (ReleasePlan).
        .target(name: "DepotPolicy", dependencies: ["DepotHTTP", "DepotManifest"], swiftSettings: swiftSettings),
        // Ed25519 signatures of channel and root documents, as server, client and CLI judge them.
        .target(name: "DepotSigning", dependencies: ["DepotManifest", crypto], swiftSettings: swiftSettings),
        // A value behind a lock, for platforms without `Synchronization.Mutex` (iOS 16).
        .target(name: "DepotConcurrency", swiftSettings: swiftSettings),
        // zlib, as the client links it.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // Brotli (libbrotli) and Zstandard (libzstd) from Debian's packages, bound in DepotCodecs
        // (issue 45): the server's encoders, and the client's decoders on Linux (Apple's
        // Compression decodes brotli on Apple platforms).
        .systemLibrary(name: "CBrotli", providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(name: "CZstd", providers: [.apt(["libzstd-dev"])]),
        // One-shot brotli and zstd encoding and bounded decoding over the C libraries; no codec
        // is written by hand.
        .target(name: "DepotCodecs", dependencies: ["CBrotli", "CZstd"], swiftSettings: swiftSettings),
        // Linux calls Swift's Glibc module leaves out (declared by glibc only with _GNU_SOURCE).
        .systemLibrary(name: "CLinuxCalls"),
        // RFC 3284 VCDIFF deltas: encoder and decoder, and patches as gzip-compressed VCDIFF
        // (GzipVCDIFF); Depot's one zlib binding (Gzip); standard library and zlib only.
        .target(name: "DepotDelta", dependencies: ["CZlib", crypto], swiftSettings: swiftSettings + optimisedInDebug),
        // The folders Depot writes (the export folder, the client's sync folder), touched only
        // through descriptors so that no link planted inside is followed, and their locks.
        // POSIX only, so the client builds for iOS and macOS with it.
        .target(name: "DepotFiles", dependencies: ["DepotConcurrency"], swiftSettings: swiftSettings),
        // The thin client: Foundation, zlib (through DepotDelta) and swift-crypto only.
        .target(
            name: "DepotClient",
            dependencies: [
                "DepotPolicy",
                .target(name: "DepotCodecs", condition: .when(platforms: [.linux])),
                .target(name: "CLinuxCalls", condition: .when(platforms: [.linux])),
                "DepotAPI",
                "DepotConcurrency",
                "DepotDelta",
                "DepotFiles",
                "DepotHTTP",
                "DepotManifest",
                "DepotSigning",
                crypto,
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DepotFixtures",
            dependencies: ["DepotConcurrency", "DepotDelta", "DepotManifest", "DepotSigning", crypto],
            swiftSettings: swiftSettings
        ),
        // The client's decisions and its staging, tested without a server.
        .testTarget(
            name: "DepotClientUnitTests",
            dependencies: [
                "DepotPolicy", "DepotAPI", "DepotClient", "DepotCodecs", "DepotConcurrency", "DepotDelta", "DepotFiles",
                "DepotManifest", "DepotSigning", "DepotFixtures", crypto,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepotPolicyTests",
            dependencies: ["DepotPolicy", "DepotHTTP", "DepotManifest", "DepotFixtures"],  // DepotFixtures: the one entry and document builders
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepotHTTPTests",
            dependencies: ["DepotHTTP", "DepotManifest", "DepotFixtures"],
            exclude: ["Corpus"],  // read from the source tree, and by scripts/fuzz paths|fields|pages
            swiftSettings: swiftSettings
        ),
    ]
)
