// swift-tools-version:6.2
// The peer Depot is measured against in scripts/bench-serve: Hummingbird's own FileMiddleware,
// serving a folder with nothing else in the way.
import PackageDescription

let package = Package(
    name: "FileMiddlewareServer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
    ],
    targets: [
        .executableTarget(
            name: "FileMiddlewareServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        )
    ]
)
