import DepotClient
import DepotManifest
import DepotTestSupport
import Foundation
import Testing

/// Depot run as docs/operators.md's production install runs it, not as root: `depot serve`, `depot
/// export` and `depot mirror` as the service's user and group under the systemd unit's
/// `UMask=0027`, in a state folder the service owns (mode 0750, as `StateDirectoryMode`), and
/// the shipped `deploy/nginx/static-mirror.conf` with its workers as another user, in the
/// service's group (docs/export-and-mirrors.md: `usermod -aG depot www-data`). Every file the three writers
/// leave must be one those workers can read: a file only its owner reads is a 403 from nginx.
/// And the files of that install as shipped: `deploy/depot.service` and
/// `deploy/config.example.json` (``systemdUnit()``, ``exampleConfig()``).
@Suite("Production modes")
struct ProductionModesTests {
    /// The service's user and group (the unit's `User=depot`, `Group=depot`): Debian's `nobody`
    /// and `nogroup` stand for them.
    static let service = (user: "nobody", group: "nogroup")
    /// nginx's workers: Debian's `www-data`, in the service's group, as nginx's `user` directive
    /// (a user, then its group) puts them.
    static let webServer = "www-data nogroup"
    /// Runs a program as the unit runs `depot`: as the service's user, in its group and no other,
    /// under `UMask=0027`.
    static let asService = [
        "/bin/sh", "-c", "umask 0027 && exec /usr/bin/setpriv --reuid=\(service.user) --regid=\(service.group) --clear-groups -- \"$0\" \"$@\"",
    ]

    /// A test's folders: `state` the service's (as `/var/lib/depot`), the trees and the clients
    /// the test's.
    struct Stage: Sendable {
        let root: URL
        let publicKey: String

        var state: URL { root.appendingPathComponent("state") }
        func statePath(_ name: String) -> String { state.appendingPathComponent(name).path }

        static func with(_ body: (Stage) async throws -> Void) async throws {
            try await withTemporaryDirectory { root in
                let state = root.appendingPathComponent("state")
                for folder in [state, state.appendingPathComponent("public")] {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try FileManager.default.setAttributes(
                        [.ownerAccountName: service.user, .groupOwnerAccountName: service.group, .posixPermissions: 0o750],
                        ofItemAtPath: folder.path
                    )
                }
                let keygen = try await runAsService(["keygen", "--out", state.appendingPathComponent("channel.key").path], in: root)
                #expect(keygen.status == 0, "\(keygen.log)")
                let publicKey = try #require(keygen.log.split(separator: " ").dropFirst(2).first.map(String.init))
                try await body(Stage(root: root, publicKey: publicKey))
            }
        }

        /// Runs `depot` with `arguments` as the service, to its end.
        static func runAsService(
            _ arguments: [String],
            environment: [String: String] = [:],
            in root: URL
        ) async throws -> (status: Int32, log: String) {
            try await DepotProcess.with(arguments, environment: environment, in: root, wrapper: asService) { depot in
                (try await depot.waitForExit(), depot.log)
            }
        }

        /// The service's settings: its tokens, its signing key, the folder it keeps in step.
        var environment: [String: String] {
            [
                "DEPOT_PUBLISH_TOKENS": InProcessCLI.token, "DEPOT_CHANNELS_SIGNING_KEY_FILES": statePath("channel.key"),
                "DEPOT_EXPORT_DIRECTORY": statePath("follow"),
            ]
        }

        /// `depot export` and `depot mirror` as the service, after a publish, as cron would.
        func exportAndMirror(from origin: String) async throws {
            let export = try await Self.runAsService(
                ["export", "--data", statePath("data"), "--to", statePath("export")],
                environment: environment,
                in: root
            )
            #expect(export.status == 0, "\(export.log)")
            let mirror = try await Self.runAsService(
                ["mirror", "--from", origin, "--to", statePath("mirror"), "--trusted-key", publicKey],
                in: root
            )
            #expect(mirror.status == 0, "\(mirror.log)")
        }

        /// Waits until the server's `export.directory` names the release `export` names.
        func waitForFollower() async throws {
            func release(_ folder: String) -> String? {
                (try? Data(contentsOf: state.appendingPathComponent("\(folder)/channels/stable")))
                    .flatMap { try? JSONDecoder().decode(ChannelDocument.self, from: $0) }?.release
            }
            // Hang guard: slowest seen 24.3 s under two busy loops (the whole test).
            let caughtUp = try await poll(for: .seconds(300)) { release("follow") != nil && release("follow") == release("export") ? true : nil }
            #expect(caughtUp == true, "export.directory did not catch up")
        }

        /// A release's tree: files under 1 MiB (uploaded in batches) and one over (streamed).
        func writeTree(_ tree: String, edition: Int) throws {
            for index in 0..<30 {
                try root.write(Fixture.pseudoRandom(count: 3000, seed: UInt64(edition * 1000 + index)), to: "\(tree)/assets/\(index).bin")
            }
            let notes = Fixture.pseudoRandom(count: 60_000, seed: 7).map { String(format: "%02x", $0) }.joined() + "edition \(edition)\n"
            try root.write(Data(notes.utf8), to: "\(tree)/notes.txt")
            var database = Fixture.pseudoRandom(count: 3 << 19, seed: 9)
            database[1 << 20] = UInt8(edition)
            try root.write(database, to: "\(tree)/catalog.db")
        }

        /// The stage's clients, synced and compared with the trees as every static-edge suite's
        /// are (the same folder and key).
        var clients: ExportStage { ExportStage(root: root, publicKey: publicKey) }

        /// `depot sync` of `client` from `server`, trusting the service's key: the report.
        func sync(_ client: String, from server: String) async throws -> SyncReport {
            try await clients.sync(client, from: server)
        }

        /// Whether the client folder `client` holds every file of `tree`, byte for byte.
        func holdsTree(_ client: String, _ tree: String) throws -> Bool {
            try clients.holdsTree(client, tree)
        }

        /// Every file of `folder` a client may ask for (none under a dot name), by URL path.
        func servedPaths(of folder: String) throws -> [String] {
            let base = state.appendingPathComponent(folder)
            let names = try #require(FileManager.default.enumerator(atPath: base.path)).compactMap { $0 as? String }
            return names.filter { name in
                !name.split(separator: "/").contains { $0.hasPrefix(".") }
                    && (try? FileManager.default.attributesOfItem(atPath: base.appendingPathComponent(name).path)[.type] as? FileAttributeType)
                        == .typeRegular
            }
            .map { "/" + $0 }
        }
    }

    /// The three folders, each served by its own nginx.
    static let folders = ["export", "follow", "mirror"]

    @Test(
        "depot serve, export and mirror as the service under UMask=0027, nginx's workers as another user of its group: a signed client syncs releases 1 and 2 through the export, export.directory and the mirror, and nginx reads every file they wrote"
    )
    func servedAsInProduction() async throws {
        try await Stage.with { stage in
            try stage.writeTree("v1", edition: 1)
            try stage.writeTree("v2", edition: 2)
            let serve = ["serve", "--port", "0", "--public", stage.statePath("public"), "--data", stage.statePath("data")]
            try await DepotProcess.with(serve, environment: stage.environment, in: stage.root, wrapper: Self.asService) { server in
                let origin = "http://127.0.0.1:\(try await server.waitForPort())"
                for (edition, tree) in ["v1", "v2"].enumerated() {
                    let published = try await InProcessCLI.run(["publish", tree, "--server", origin, "--no-index"], in: stage.root)
                    #expect(published.status == 0, "\(published.errors)")
                    try await stage.exportAndMirror(from: origin)
                    try await stage.waitForFollower()

                    // The service's own server, run unprivileged, serves its data folder.
                    let direct = try await stage.sync("direct", from: origin)
                    #expect(direct.release?.number == Int64(edition + 1))
                    for folder in Self.folders {
                        try await Nginx.serving(export: stage.state.appendingPathComponent(folder), workers: Self.webServer) { nginx in
                            let report = try await stage.sync("client-\(folder)", from: nginx.url(""))
                            #expect(report.release?.number == Int64(edition + 1), "\(folder): \(report)")
                            #expect(report.signature == .verified, "\(folder)")
                            #expect(try stage.holdsTree("client-\(folder)", tree), "\(folder)")
                            let refused = nginx.requests.filter { $0.status == 403 }
                            #expect(refused.isEmpty, "\(folder): nginx could not read \(refused.map(\.path))")
                            try await Self.expectAllReadable(try stage.servedPaths(of: folder), through: nginx, folder: folder)
                        }
                    }
                }
                #expect(try await server.stop() == 0)
            }
        }
    }

    @Test("a data folder stored by an older Depot, its small files 0600: depot export copies them, readable, and links the rest")
    func olderStoreCopied() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Fixture.pseudoRandom(count: 3000, seed: 1), to: "tree/small.bin")
            try root.write(Fixture.pseudoRandom(count: 3000, seed: 2), to: "tree/other.bin")
            try await InProcessCLI.publish(["tree", "--no-index"], to: server, in: root)
            let small = Fixture.sha256(try Data(contentsOf: root.appendingPathComponent("tree/small.bin")))
            let other = Fixture.sha256(try Data(contentsOf: root.appendingPathComponent("tree/other.bin")))
            let stored = root.appendingPathComponent("data/blobs/\(small.prefix(2))/\(small)").path
            #expect(try Self.status(of: stored).mode & 0o040 != 0, "the store writes 0644 less the umask: group-readable")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: stored)

            let export = try await InProcessCLI.run(["export", "--data", "data", "--to", "export", "--unsigned"], token: nil, in: root)
            #expect(export.status == 0, "\(export.errors)")
            let copied = try Self.status(of: root.appendingPathComponent("export/blobs/\(small)").path)
            #expect(copied.mode & 0o040 != 0 && copied.links == 1, "a copy, with the folder's mode")
            #expect(try Self.status(of: stored).mode & 0o777 == 0o600, "the store is only read")
            #expect(try Self.status(of: root.appendingPathComponent("export/blobs/\(other)").path).links == 2, "the others are links")
        }
    }

    /// The permission bits and link count of the file at `path`, through Foundation: `struct
    /// stat`'s fields are owned by a different C module in debug and release builds
    /// (MemberImportVisibility), so a test reading them builds in one and not the other.
    static func status(of path: String) throws -> (mode: Int, links: Int) {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0, (attributes[.referenceCount] as? NSNumber)?.intValue ?? 0)
    }

    /// Asks nginx for every path in `paths`, in one curl run: each must be a 200.
    static func expectAllReadable(_ paths: [String], through nginx: Nginx, folder: String) async throws {
        #expect(paths.contains("/channels/stable") && paths.contains { $0.hasSuffix(".gz") }, "\(folder) holds the channel and variants: \(paths)")
        let arguments = ["-w", "%{http_code} %{url_effective}\\n"] + paths.flatMap { ["-o", "/dev/null", nginx.url($0)] }
        let result = try await runCurl(arguments)
        let unreadable = String(decoding: result.standardOutput, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("200 ") }
        #expect(unreadable.isEmpty, "\(folder): \(unreadable.count) of \(paths.count) files not served: \(unreadable.prefix(5))")
    }
}

/// `deploy/depot.service` and `deploy/config.example.json`, exercised as shipped.
extension ProductionModesTests {
    static let deploy = PackageRoot.url
        .appendingPathComponent("deploy")

    @Test("systemd-analyze verifies the unit", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func systemdUnit() async throws {
        try await withTemporaryDirectory { folder in
            var unit = try String(contentsOf: Self.deploy.appendingPathComponent("depot.service"), encoding: .utf8)
            let shipped = "ExecStart=/usr/local/bin/depot "
            try #require(unit.contains(shipped))
            unit = unit.replacingOccurrences(of: shipped, with: "ExecStart=\(DepotProcess.executable.path) ")
            try folder.write(Data(unit.utf8), to: "depot.service")
            let output = try await DepotProcess.run(
                "/usr/bin/systemd-analyze",
                ["verify", folder.appendingPathComponent("depot.service").path],
                in: folder
            )
            #expect(output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(output)")
            #expect(unit.contains("Restart=on-failure"))
            #expect(unit.contains("ProtectSystem=strict"))
            #expect(unit.contains("StateDirectory=depot"))
        }
    }

    @Test("depot serve starts on the example config, and its settings take effect")
    func exampleConfig() async throws {
        try await withTemporaryDirectory { root in
            try root.write(Data("body{}\n".utf8), to: "public/assets/site.css")
            try root.write(Data("secret-from-file\n".utf8), to: "tokens")
            try await DepotProcess.with(
                [
                    "serve", "--config", Self.deploy.appendingPathComponent("config.example.json").path,
                    "--port", "0", "--public", "public", "--data", "data",
                ],
                environment: ["DEPOT_PUBLISH_TOKEN_FILE": root.appendingPathComponent("tokens").path],
                in: root
            ) { depot in
                let port = try await depot.waitForPort()
                try await RawHTTPConnection.with(port: port) { connection in
                    let asset = try await connection.request("GET", "/assets/site.css")
                    #expect(asset.status == 200)
                    #expect(asset.header("Cache-Control") == "public, max-age=86400", "public.cacheControlRules")
                    #expect(asset.header("Server") == "depot", "http.serverName")
                    let publish = try await connection.request(
                        "PUT",
                        "/v1/files/a.txt",
                        headers: [("Authorization", "Bearer secret-from-file")],
                        body: Array("a\n".utf8)
                    )
                    #expect(publish.status == 201, "publish.tokenFile")
                }
                #expect(try await depot.stop() == 0)
            }
        }
    }
}
