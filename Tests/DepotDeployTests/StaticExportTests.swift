import DepotClient
import DepotManifest
import DepotTestSupport
import Foundation
import Testing

/// The published tree as plain files (`depot export`, `export.directory`), served by the
/// shipped `deploy/nginx/static-mirror.conf` with no Depot behind it.
@Suite("Static export")
struct StaticExportTests {
    /// A data folder, a signing key, and the real binaries.
    struct Stage: Sendable {
        let root: URL
        let publicKey: String

        static func with(_ body: (Stage) async throws -> Void) async throws {
            try await withTemporaryDirectory { root in
                try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
                let keygen = try await DepotCLI.run(["keygen", "--out", root.appendingPathComponent("channel.key").path], in: root)
                let publicKey = try #require(keygen.output.split(separator: " ").dropFirst(2).first.map(String.init))
                try await body(Stage(root: root, publicKey: publicKey))
            }
        }

        func path(_ name: String) -> String { root.appendingPathComponent(name).path }

        /// The server's settings: its signing key, and `extra`.
        func environment(_ extra: [String: String] = [:]) -> [String: String] {
            ["DEPOT_PUBLISH_TOKENS": DepotCLI.token, "DEPOT_CHANNELS_SIGNING_KEY_FILES": path("channel.key")].merging(extra) { $1 }
        }

        /// Runs `depot serve` on the stage's data folder for the length of `body`.
        func serving(_ extra: [String: String] = [:], _ body: (String) async throws -> Void) async throws {
            try await DepotProcess.with(["serve", "--port", "0", "--public", "public", "--data", "data"], environment: environment(extra), in: root) {
                server in
                let port = try await server.waitForPort()
                try await body("http://127.0.0.1:\(port)")
                #expect(try await server.stop() == 0)
            }
        }

        /// `depot export --to FOLDER`, with the server's settings: its exit status and output.
        func export(to folder: String, _ extra: [String: String] = [:]) async throws -> (status: Int32, log: String) {
            try await DepotProcess.run(["export", "--data", "data", "--to", folder], environment: environment(extra), in: root)
        }

        /// Publishes the folder `tree` to `server`, as one release.
        func publish(_ tree: String, to server: String) async throws {
            try await DepotCLI.publish([tree, "--no-index"], to: server, in: root)
        }

        /// `depot sync` of `folder` from `server`, trusting the stage's key: the report.
        func sync(_ folder: String, from server: String) async throws -> SyncReport {
            let result = try await DepotCLI.run(
                ["sync", "--server", server, "--dir", folder, "--trusted-key", publicKey, "--json"],
                token: nil,
                in: root
            )
            #expect(result.status == 0, "\(result.errors)")
            return try JSONDecoder().decode(SyncReport.self, from: Data(result.output.utf8))
        }

        /// Writes a tree of `count` small files, a compressible text of 200 KB and a 2 MB
        /// database into `tree`, the database's 10 bytes at 1 MB set to `edit`;
        /// `variant` picks other bytes for the small files.
        func writeTree(_ tree: String, count: Int = 40, variant: Int = 0, edit: UInt8) throws {
            for index in 0..<count {
                try root.write(Fixture.pseudoRandom(count: 2000, seed: UInt64(variant * 100_000 + index * 2 + 1)), to: "\(tree)/assets/\(index).bin")
            }
            // Text (hex) that gzip halves: larger than a pack member even compressed.
            let notes = Fixture.pseudoRandom(count: 100_000, seed: 77).map { String(format: "%02x", $0) }.joined() + "edition \(edit)\n"
            try root.write(Data(notes.utf8), to: "\(tree)/notes.txt")
            var database = Fixture.pseudoRandom(count: 2 << 20, seed: 99)
            database.replaceSubrange((1 << 20)..<((1 << 20) + 10), with: [UInt8](repeating: edit, count: 10))
            try root.write(database, to: "\(tree)/catalog.db")
        }

        /// Puts in the export folder `export`, in place of the blob of `file` (which is a link to
        /// the store's), a new file with one byte changed: a tampering mirror.
        func tamper(_ export: String, blobOf file: String) throws {
            let sha256 = Fixture.sha256(try Data(contentsOf: root.appendingPathComponent(file)))
            let blob = root.appendingPathComponent("\(export)/blobs/\(sha256)")
            var bytes = try Data(contentsOf: blob)
            bytes[100] ^= 0xFF
            try FileManager.default.removeItem(at: blob)
            try bytes.write(to: blob)
        }

        /// Whether `folder` holds exactly what `tree` holds.
        func holdsTree(_ folder: String, _ tree: String) throws -> Bool {
            let files = try #require(FileManager.default.enumerator(atPath: path(tree))).compactMap { $0 as? String }
            for file in files
            where (try? FileManager.default.attributesOfItem(atPath: path("\(tree)/\(file)"))[.type] as? FileAttributeType) == .typeRegular {
                guard FileManager.default.contents(atPath: path("\(folder)/\(file)")) == FileManager.default.contents(atPath: path("\(tree)/\(file)"))
                else {
                    return false
                }
            }
            return true
        }
    }

    @Test("exported, then Depot stopped: nginx serves the folder, and a client of the older release updates through patches, signature checked")
    func exportThenStop() async throws {
        try await Stage.with { stage in
            try stage.writeTree("v1", edit: 1)
            try stage.writeTree("v2", edit: 2)
            try await stage.serving { origin in
                try await stage.publish("v1", to: origin)
                #expect(try await stage.sync("client", from: origin).release?.number == 1)
                try await stage.publish("v2", to: origin)
            }
            let export = try await stage.export(to: "export")
            #expect(export.status == 0, "\(export.log)")
            #expect(export.log.contains("Exported 2 release(s)"), "the channel's release and its parent")
            let again = try await stage.export(to: "export")
            #expect(again.log.contains("Exported 0 release(s), 0 file(s)"), "an unchanged export writes nothing: \(again.log)")

            try await Nginx.serving(export: stage.root.appendingPathComponent("export")) { nginx in
                let report = try await stage.sync("client", from: nginx.url(""))
                #expect(report.release?.number == 2)
                #expect(report.signature == .verified)
                let database = try #require(report.files.first { $0.path == "catalog.db" })
                #expect(database.outcome == .delta, "the database came as a patch: \(database)")
                #expect(report.bytesTransferred < 100_000, "\(report.bytesTransferred) bytes for a 10-byte change")
                #expect(try stage.holdsTree("client", "v2"))
                // The release document and its page came as patches of the held ones too.
                let release = try JSONDecoder().decode(
                    ChannelDocument.self,
                    from: Data(contentsOf: stage.root.appendingPathComponent("export/channels/stable"))
                ).release
                let patches = nginx.requests.filter { $0.path.hasPrefix("/deltas/") && $0.status == 200 }
                #expect(patches.contains { $0.path.hasSuffix("/\(release)") }, "\(patches)")
                #expect(patches.count >= 3, "the database's, the release document's and the page's: \(patches)")

                let cold = try await stage.sync("cold", from: nginx.url(""))
                #expect(cold.release?.number == 2)
                #expect(cold.files.filter { $0.outcome == .packed }.count == 40, "small files by pack")
                #expect(cold.files.first { $0.path == "notes.txt" }?.outcome == .gzip, "a gzip variant")
                #expect(try stage.holdsTree("cold", "v2"))

                let unchanged = try await stage.sync("client", from: nginx.url(""))
                #expect(unchanged.channelNotModified, "an unchanged poll is a 304 from nginx")

                let channel = try await runCurl(["-sS", "-D", "-", "-o", "/dev/null", nginx.url("/channels/stable")])
                let channelHeaders = String(decoding: channel.standardOutput, as: UTF8.self)
                #expect(channelHeaders.contains("Content-Type: application/json"))
                #expect(channelHeaders.contains("Cache-Control: no-cache"))
                let sha256 = Fixture.sha256(try Data(contentsOf: stage.root.appendingPathComponent("v2/catalog.db")))
                let range = try await runCurl(["-sS", "-D", "-", "-o", "/dev/null", "-r", "0-9", nginx.url("/blobs/\(sha256)")])
                let rangeHeaders = String(decoding: range.standardOutput, as: UTF8.self)
                #expect(rangeHeaders.hasPrefix("HTTP/1.1 206"), "\(rangeHeaders)")
                #expect(rangeHeaders.contains("Cache-Control: public, max-age=31536000, immutable"))
                let hidden = try await runCurl(["-sS", "-o", "/dev/null", "-w", "%{http_code}", nginx.url("/.lock")])
                #expect(String(decoding: hidden.standardOutput, as: UTF8.self) == "404")
            }
        }
    }

    @Test(
        "depot export without the server's key refuses; --unsigned exports unsigned, but never over a signed folder, which keeps its signed documents"
    )
    func exportWithoutKey() async throws {
        try await Stage.with { stage in
            try stage.writeTree("v1", edit: 1)
            try await stage.serving { origin in try await stage.publish("v1", to: origin) }
            // The cron job that lost its key variable.
            let keyless = ["DEPOT_PUBLISH_TOKENS": DepotCLI.token]
            let refused = try await DepotProcess.run(["export", "--data", "data", "--to", "export"], environment: keyless, in: stage.root)
            #expect(refused.status == 1)
            #expect(refused.log.contains("no signing key") && refused.log.contains("--unsigned"), "\(refused.log)")
            #expect(!FileManager.default.fileExists(atPath: stage.path("export/channels/stable")))

            #expect(try await stage.export(to: "export").status == 0)
            let signed = try Data(contentsOf: stage.root.appendingPathComponent("export/channels/stable"))
            #expect(try !JSONDecoder().decode(ChannelDocument.self, from: signed).signatures.isEmpty)
            let over = try await DepotProcess.run(["export", "--data", "data", "--to", "export", "--unsigned"], environment: keyless, in: stage.root)
            #expect(over.status == 1)
            #expect(over.log.contains("is signed in the folder"), "\(over.log)")
            #expect(try Data(contentsOf: stage.root.appendingPathComponent("export/channels/stable")) == signed)

            let unsigned = try await DepotProcess.run(
                ["export", "--data", "data", "--to", "fresh", "--unsigned"],
                environment: keyless,
                in: stage.root
            )
            #expect(unsigned.status == 0, "\(unsigned.log)")
            let document = try Data(contentsOf: stage.root.appendingPathComponent("fresh/channels/stable"))
            #expect(try JSONDecoder().decode(ChannelDocument.self, from: document).signatures.isEmpty)
        }
    }

    @Test("depot export --prune removes from the folder what retention removed from the store")
    func prune() async throws {
        try await Stage.with { stage in
            for version in 1...3 { try stage.writeTree("v\(version)", edit: UInt8(version)) }
            let retention = [
                "DEPOT_PUBLISH_KEEP_RELEASES": "0", "DEPOT_PUBLISH_RETIRED_GRACE_SECONDS": "0", "DEPOT_PUBLISH_COLLECTION_INTERVAL_SECONDS": "0.1",
            ]
            try await stage.serving(retention) { origin in
                var releases: [String] = []
                func publish(_ version: Int) async throws {
                    try await stage.publish("v\(version)", to: origin)
                    let document = try await runCurl(["-sS", origin + "/channels/stable"]).standardOutput
                    releases.append(try JSONDecoder().decode(ChannelDocument.self, from: document).release)
                }
                try await publish(1)
                try await publish(2)
                let first = try await stage.export(to: "export")
                #expect(first.status == 0, "\(first.log)")
                let exported = { (id: String) in FileManager.default.fileExists(atPath: stage.path("export/releases/\(id)")) }
                #expect(exported(releases[1]), "the channel's release")
                // Retention keeps only the channel's release: release 2 goes once 3 is published,
                // after the (zero) grace period.
                try await publish(3)
                for _ in 0..<200
                where try await runCurl(["-s", "-o", "/dev/null", "-w", "%{http_code}", origin + "/releases/\(releases[1])"]).standardOutput
                    != Data("404".utf8)
                {
                    try await Task.sleep(for: .milliseconds(50))
                }
                let pruned = try await DepotProcess.run(
                    ["export", "--data", "data", "--to", "export", "--prune"],
                    environment: stage.environment(),
                    in: stage.root
                )
                #expect(pruned.status == 0)
                #expect(pruned.log.contains("file(s) removed") && !pruned.log.contains(", 0 file(s) removed"), "\(pruned.log)")
                #expect(!exported(releases[0]) && !exported(releases[1]))
                #expect(exported(releases[2]))
                try await Nginx.serving(export: stage.root.appendingPathComponent("export")) { nginx in
                    let report = try await stage.sync("client", from: nginx.url(""))
                    #expect(report.release?.number == 3)
                    let holds = try stage.holdsTree("client", "v3")
                    #expect(holds)
                }
            }
        }
    }

    @Test("an exporter killed at random points: a client syncing from the folder meanwhile gets a whole release, the old or the new")
    func killedExporter() async throws {
        try await Stage.with { stage in
            let rounds = 4
            let files = 400
            for round in 0...rounds { try stage.writeTree("v\(round)", count: files, variant: round, edit: UInt8(round)) }
            try await stage.serving { origin in
                try await stage.publish("v0", to: origin)
                #expect(try await stage.export(to: "export").status == 0)
                try await Nginx.serving(export: stage.root.appendingPathComponent("export")) { nginx in
                    #expect(try await stage.sync("client", from: nginx.url("")).release?.number == 1)
                    let blobs = stage.root.appendingPathComponent("export/blobs").path
                    var interrupted = 0
                    for round in 1...rounds {
                        try await stage.publish("v\(round)", to: origin)
                        // The point of the kill: after a random number of the round's new files.
                        let before = try FileManager.default.contentsOfDirectory(atPath: blobs).count
                        let point = Int.random(in: 1...files)
                        // Each placement of the exporter waits 3 ms (strace's fault injection), so
                        // that a kill falls half-way however loaded the machine is.
                        let places = "link,linkat,rename,renameat,renameat2"
                        async let synced = stage.sync("client", from: nginx.url(""))
                        let killed = try await DepotProcess.with(
                            ["export", "--data", "data", "--to", "export"],
                            environment: stage.environment(),
                            in: stage.root,
                            wrapper: [
                                "/usr/bin/strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=\(places)", "-e", "inject=\(places):delay_enter=3000",
                            ]
                        ) { exporter in
                            while exporter.isRunning, try FileManager.default.contentsOfDirectory(atPath: blobs).count - before < point {
                                try await Task.sleep(for: .milliseconds(2))
                            }
                            let killed = exporter.isRunning
                            exporter.kill()
                            _ = try await exporter.waitForExit()
                            return killed
                        }
                        let report = try await synced
                        let number = try #require(report.release?.number)
                        #expect(try stage.holdsTree("client", "v\(number - 1)"), "round \(round): release \(number) whole")
                        let exported = try JSONDecoder().decode(
                            ChannelDocument.self,
                            from: Data(contentsOf: stage.root.appendingPathComponent("export/channels/stable"))
                        )
                        if killed, exported.number != Int64(round + 1) { interrupted += 1 }
                    }
                    #expect(interrupted > 0, "no exporter was killed half-way")
                    print("killedExporter: \(interrupted) of \(rounds) exporters killed half-way")
                    #expect(try await stage.export(to: "export").status == 0)
                    let last = try await stage.sync("client", from: nginx.url(""))
                    #expect(last.release?.number == Int64(rounds + 1))
                    #expect(try stage.holdsTree("client", "v\(rounds)"))
                }
            }
        }
    }

    /// The files of an export folder and their bytes, work folders left out.
    static func tree(_ folder: URL) throws -> [String: Data] {
        let names = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
        var files: [String: Data] = [:]
        for name in names where !name.hasPrefix(".") {
            let path = folder.appendingPathComponent(name).path
            guard (try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular else { continue }
            files[name] = FileManager.default.contents(atPath: path)
        }
        return files
    }

    @Test(
        "depot mirror from the origin, then from that folder behind nginx: identical trees, as the export's; killed, it goes on; a tampered source is refused"
    )
    func mirrorChain() async throws {
        try await Stage.with { stage in
            try stage.writeTree("v1", edit: 1)
            try stage.writeTree("v2", edit: 2)
            try await stage.serving { origin in
                try await stage.publish("v1", to: origin)
                try await stage.publish("v2", to: origin)
                @Sendable func mirror(from source: String, to folder: String) async throws -> (status: Int32, output: String, errors: String) {
                    try await DepotCLI.run(
                        ["mirror", "--from", source, "--to", folder, "--trusted-key", stage.publicKey],
                        token: nil,
                        in: stage.root
                    )
                }
                let first = try await mirror(from: origin, to: "first")
                #expect(first.status == 0, "\(first.errors)")
                #expect(first.output.contains("Mirrored stable: release 2"))
                #expect(try await stage.export(to: "export").status == 0)
                let firstTree = try Self.tree(stage.root.appendingPathComponent("first"))
                #expect(firstTree == (try Self.tree(stage.root.appendingPathComponent("export"))), "a mirror of the origin is its export")
                #expect(firstTree.keys.contains { $0.hasPrefix("deltas/") } && firstTree.keys.contains { $0.hasPrefix("packs/") })

                try await Nginx.serving(export: stage.root.appendingPathComponent("first")) { nginx in
                    let second = try await mirror(from: nginx.url(""), to: "second")
                    #expect(second.status == 0, "\(second.errors)")
                    #expect(try Self.tree(stage.root.appendingPathComponent("second")) == firstTree)
                    let again = try await mirror(from: nginx.url(""), to: "second")
                    #expect(again.output.contains("0 file(s) written"), "\(again.output)")

                    // Killed once its first files are in place (from a source slowed down, so
                    // that the kill falls half-way), then run again.
                    try await FaultyRelay.with(upstreamPort: nginx.port) { relay in
                        relay.slowDownBlobResponses(by: .milliseconds(5))
                        try await DepotProcess.with(
                            ["mirror", "--from", "http://127.0.0.1:\(relay.port)", "--to", "third", "--trusted-key", stage.publicKey],
                            in: stage.root
                        ) { killed in
                            let blobs = stage.root.appendingPathComponent("third/blobs").path
                            while killed.isRunning, ((try? FileManager.default.contentsOfDirectory(atPath: blobs).count) ?? 0) < 5 {
                                try await Task.sleep(for: .milliseconds(2))
                            }
                            #expect(killed.isRunning, "killed half-way")
                            killed.kill()
                            _ = try await killed.waitForExit()
                        }
                    }
                    #expect(!FileManager.default.fileExists(atPath: stage.root.appendingPathComponent("third/channels/stable").path))
                    #expect(try await mirror(from: nginx.url(""), to: "third").status == 0)
                    #expect(try Self.tree(stage.root.appendingPathComponent("third")) == firstTree)
                }

                // One file of the source changed: the mirror refuses it, and shows nothing.
                try stage.tamper("first", blobOf: "v2/catalog.db")
                try await Nginx.serving(export: stage.root.appendingPathComponent("first")) { nginx in
                    let refused = try await mirror(from: nginx.url(""), to: "fourth")
                    #expect(refused.status == 1)
                    #expect(refused.errors.contains("does not have the SHA-256"), "\(refused.errors)")
                    #expect(!FileManager.default.fileExists(atPath: stage.root.appendingPathComponent("fourth/channels/stable").path))
                    let unsigned = try await DepotCLI.run(
                        ["mirror", "--from", nginx.url(""), "--to", "fifth", "--trusted-key", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="],
                        token: nil,
                        in: stage.root
                    )
                    #expect(unsigned.status == 1)
                    #expect(unsigned.errors.contains("refused"), "\(unsigned.errors)")
                }
            }
        }
    }

    @Test("under a root of trust rotated once: depot mirror and a client walk the roots of the export, and of a mirror of it")
    func rootsThroughMirrors() async throws {
        try await Stage.with { stage in
            @Sendable func depot(_ arguments: [String]) async throws -> String {
                let result = try await DepotCLI.run(arguments, token: nil, in: stage.root)
                #expect(result.status == 0, "depot \(arguments.joined(separator: " ")): \(result.errors)")
                return result.output
            }
            let rootKey = try #require(try await depot(["keygen", "--out", stage.path("root.key")]).split(separator: " ").dropFirst(2).first)
            try FileManager.default.createDirectory(at: stage.root.appendingPathComponent("roots"), withIntermediateDirectories: true)
            _ = try await depot([
                "root", "init", "--out", stage.path("roots/1.root.json"), "--root-key", String(rootKey), "--channel-key", stage.publicKey,
            ])
            _ = try await depot(["root", "sign", stage.path("roots/1.root.json"), "--key", stage.path("root.key")])
            _ = try await depot([
                "root", "rotate", "--from", stage.path("roots/1.root.json"), "--out", stage.path("roots/2.root.json"), "--expires-days", "30",
            ])
            _ = try await depot(["root", "sign", stage.path("roots/2.root.json"), "--key", stage.path("root.key")])
            let roots = ["DEPOT_CHANNELS_ROOT_DIRECTORY": stage.path("roots")]
            try stage.writeTree("v1", edit: 1)
            try await stage.serving(roots) { origin in
                try await stage.publish("v1", to: origin)
            }
            #expect(try await stage.export(to: "export", roots).status == 0)
            #expect(FileManager.default.fileExists(atPath: stage.path("export/roots/2.json")))
            try await Nginx.serving(export: stage.root.appendingPathComponent("export")) { exported in
                let mirrored = try await depot([
                    "mirror", "--from", exported.url(""), "--to", "mirror", "--trusted-root", stage.path("roots/1.root.json"),
                ])
                #expect(mirrored.contains("Mirrored stable: release 1"))
                #expect(try Self.tree(stage.root.appendingPathComponent("mirror")) == (try Self.tree(stage.root.appendingPathComponent("export"))))
            }
            try await Nginx.serving(export: stage.root.appendingPathComponent("mirror")) { mirror in
                let synced = try await depot([
                    "sync", "--server", mirror.url(""), "--dir", "client", "--trusted-root", stage.path("roots/1.root.json"),
                ])
                #expect(synced.contains("signature verified under root 2"), "\(synced)")
                #expect(try stage.holdsTree("client", "v1"))
            }
        }
    }
}
