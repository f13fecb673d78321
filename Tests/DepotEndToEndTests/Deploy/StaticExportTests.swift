import DepotClient
import DepotManifest
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// The published tree as plain files (`depot export`, `export.directory`), served by the
/// shipped `deploy/nginx/static-mirror.conf` with no Depot behind it: the export, its variants
/// at the edge, and a client syncing through it.
@Suite("Static export")
struct StaticExportTests {
    typealias Stage = ExportStage

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
                // The origin's own (one a shared cache keeps a second, a client revalidates).
                #expect(channelHeaders.contains("Cache-Control: \(PublishedContent.CachePolicy().channels ?? "")"), "\(channelHeaders)")
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
            let keyless = ["DEPOT_PUBLISH_TOKENS": InProcessCLI.token]
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
}

/// Brotli and zstd variants at the edge (issue 45): `depot export` writes them, the shipped
/// `deploy/nginx/static-mirror.conf` serves them (brotli through Debian's brotli-static module,
/// zstd through its map), and a client syncs through it in the smallest one.
extension StaticExportTests {
    /// A server that makes both variants, at quick settings.
    static let variants = [
        "DEPOT_VARIANTS_BROTLI": "true", "DEPOT_VARIANTS_BROTLI_QUALITY": "9", "DEPOT_VARIANTS_BROTLI_WINDOW": "22",
        "DEPOT_VARIANTS_ZSTD": "true", "DEPOT_VARIANTS_ZSTD_LEVEL": "12", "DEPOT_VARIANTS_ZSTD_LONG_WINDOW": "0",
        "DEPOT_VARIANTS_BACKGROUND": "false",
    ]

    @Test("exported variants: nginx negotiates a file's URL for HTTP clients, and a cold client takes the smallest by its own URL")
    func throughNginx() async throws {
        try await Stage.with { stage in
            try stage.root.write(Fixture.catalogRows, to: "tree/catalog.db")
            try await stage.serving(Self.variants) { origin in try await stage.publish("tree", to: origin) }
            let export = try await stage.export(to: "export", Self.variants)
            #expect(export.status == 0, "\(export.log)")
            let sha256 = Fixture.sha256(Fixture.catalogRows)
            let blobs = stage.root.appendingPathComponent("export/blobs")
            for suffix in ["", ".gz", ".br", ".zst"] {
                #expect(FileManager.default.fileExists(atPath: blobs.appendingPathComponent(sha256 + suffix).path), "blobs/\(sha256)\(suffix)")
            }
            let sizes = try ["br", "zst", "gz"].map { suffix in
                (suffix, try Data(contentsOf: blobs.appendingPathComponent("\(sha256).\(suffix)")).count)
            }

            try await Nginx.serving(export: stage.root.appendingPathComponent("export")) { nginx in
                let report = try await stage.sync("cold", from: nginx.url(""))
                let file = try #require(report.files.first { $0.path == "catalog.db" })
                let smallest = try #require(sizes.min { $0.1 < $1.1 })
                #expect(file.encoding == (smallest.0 == "zst" ? "zstd" : smallest.0 == "gz" ? "gzip" : "br"), "\(file)")
                #expect(file.bytesTransferred == Int64(smallest.1), "\(file)")
                #expect(try stage.holdsTree("cold", "tree"))
                let fetched = nginx.requests.filter { $0.path.hasPrefix("/blobs/\(sha256)") }.map(\.path)
                #expect(fetched == ["/blobs/\(sha256).\(smallest.0)"], "the variant by its own URL, once: \(fetched)")

                // HTTP clients: the file's URL, negotiated by nginx; curl decodes and checks.
                for (accept, encoding) in [("br", "br"), ("zstd", "zstd"), ("gzip", "gzip"), ("br;q=0, zstd", "zstd"), ("identity", nil)] {
                    let headers = try await runCurl([
                        "-sS", "-D", "-", "-o", "/dev/null", "-H", "Accept-Encoding: \(accept)", nginx.url("/blobs/\(sha256)"),
                    ])
                    let text = String(decoding: headers.standardOutput, as: UTF8.self).lowercased()
                    #expect(text.contains("vary: accept-encoding"), "\(accept): \(text)")
                    if let encoding {
                        #expect(text.contains("content-encoding: \(encoding)"), "\(accept): \(text)")
                    } else {
                        #expect(!text.contains("content-encoding"), "\(accept): \(text)")
                    }
                }
                try await withTemporaryDirectory { folder in
                    let output = folder.appendingPathComponent("catalog")
                    _ = try await runCurl(["-sS", "--compressed", "-o", output.path, nginx.url("/blobs/\(sha256)")])
                    #expect(try Data(contentsOf: output) == Fixture.catalogRows)
                    let ranged = try await runCurl([
                        "-sS", "-D", "-", "-o", "/dev/null", "-H", "Accept-Encoding: zstd", "-r", "0-9", nginx.url("/blobs/\(sha256)"),
                    ])
                    let text = String(decoding: ranged.standardOutput, as: UTF8.self)
                    #expect(text.hasPrefix("HTTP/1.1 206") && text.contains("Content-Range: bytes 0-9/"), "ranges of the zstd variant: \(text)")
                }
            }
        }
    }

    @Test(
        "a hostile mirror's brotli pack, garbage or a bomb, is dropped for the pack's ranges: every file still comes, checked",
        arguments: ["garbage", "bomb"]
    )
    func hostileBrotliPack(kind: String) async throws {
        try await Stage.with { stage in
            for index in 0..<200 {
                try stage.root.write(Data("{\"id\": \(index), \"name\": \"stop \(index)\", \"lines\": [1, 2, 3]}\n".utf8), to: "tree/\(index).json")
            }
            try await stage.serving { origin in try await stage.publish("tree", to: origin) }
            #expect(try await stage.export(to: "export").status == 0)
            let packs = try FileManager.default.contentsOfDirectory(atPath: stage.path("export/packs")).filter { $0.hasSuffix(".br") }
            #expect(!packs.isEmpty, "the export holds brotli packs")
            let hostile: Data
            if kind == "bomb" {
                // 16 MB of zeros in a few bytes: far more than the page's files.
                let zeros = try stage.root.write(Data(count: 16 << 20), to: "zeros")
                hostile = try await ChildProcess.run("brotli", ["-c", zeros.path]).standardOutput
            } else {
                hostile = Fixture.pseudoRandom(count: 500, seed: 5)
            }
            for pack in packs { try hostile.write(to: stage.root.appendingPathComponent("export/packs/\(pack)")) }
            try await Nginx.serving(export: stage.root.appendingPathComponent("export")) { nginx in
                let report = try await stage.sync("cold", from: nginx.url(""))
                #expect(report.files.count == 200 && report.files.allSatisfy { $0.outcome == .packed && $0.encoding != "br" })
                #expect(try stage.holdsTree("cold", "tree"))
                let asked = nginx.requests.filter { $0.path.hasPrefix("/packs/") }.map(\.path)
                #expect(asked.contains { $0.hasSuffix(".br") } && asked.contains { !$0.hasSuffix(".br") }, "\(asked)")
            }
        }
    }
}
