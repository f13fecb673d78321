import DepotClient
import DepotManifest
import DepotTestSupport
import Foundation
import Testing

/// Cold syncs of many small files through `/packs/{page}`: a page's files in one request, and
/// after a kill, only what was not verified is fetched again.
@Suite("Packs")
struct PackSyncTests {
    static let files = 800

    static func writeTree(_ root: URL) throws {
        let all = Fixture.pseudoRandom(count: files * 1024, seed: 29)
        for index in 0..<files {
            try root.write(all[index * 1024..<(index + 1) * 1024], to: "site/\(index / 100)/\(index).bin")
        }
    }

    @Test("a pack answers the page's small files in order, with ranges and immutable caching; an unknown page is 404")
    func packAnswers() async throws {
        try await DepotProcess.withServer { root, server in
            try Self.writeTree(root)
            try await InProcessCLI.publish(["site"], to: server, in: root)
            let port = Int(server.split(separator: ":").last!)!
            try await RawHTTPConnection.with(port: port) { connection in
                let document = try await connection.request("GET", "/channels/stable").json
                let release = try await connection.request("GET", try #require(document["url"] as? String)).json
                let page = try #require((release["pages"] as? [String])?.first)
                let entries = try JSONDecoder().decode(ReleasePage.self, from: Data(try await connection.request("GET", "/pages/\(page)").body))
                let pack = try await connection.request("GET", "/packs/\(page)")
                #expect(pack.status == 200)
                #expect(pack.header("Cache-Control") == "public, max-age=31536000, immutable")
                var expected = Data()
                for member in entries.packMembers {
                    let index = Int(member.entry.path.split(separator: "/").last!.dropLast(4))!
                    expected += try Data(contentsOf: root.appendingPathComponent("site/\(index / 100)/\(index).bin"))
                }
                #expect(Data(pack.body) == expected)
                #expect(entries.packMembers.count == entries.entries.count)
                #expect(try await connection.request("GET", "/packs/\(page).br").status == 404, "random files: no brotli pack, it would save nothing")
                let range = try await connection.request("GET", "/packs/\(page)", headers: [("Range", "bytes=1024-2047")])
                #expect(range.status == 206)
                #expect(Data(range.body) == expected[1024..<2048])
                #expect(try await connection.request("GET", "/packs/\(String(repeating: "0", count: 64))").status == 404)
            }
        }
    }

    /// 600 small JSON files of one shape, as an app's catalog of records ships them.
    static func writeJSONTree(_ root: URL, count: Int = 600) throws {
        let words = ["station", "route", "express", "local", "north", "south", "platform", "ferry", "tram", "bus"]
        for index in 0..<count {
            var departures: [String] = []
            for slot in 0..<(3 + index % 17) {
                departures.append("{\"time\": \"\((5 + slot) % 24):\(index * 7 % 60)\", \"platform\": \(1 + (index + slot) % 9)}")
            }
            let json = """
                {"id": \(index), "name": "\(words[index % 10]) \(words[index * 3 % 10]) \(index)", "lat": \(40 + Double(index % 997) / 100),
                 "tags": ["\(words[index * 7 % 10])", "\(words[index * 5 % 10])"], "departures": [\(departures.joined(separator: ", "))]}
                """
            try root.write(Data(json.utf8), to: "site/\(index / 100)/\(index).json")
        }
    }

    @Test("small JSON files come whole-page in the page's brotli pack: less than half the gzip pack's bytes, every file checked")
    func brotliPacks() async throws {
        try await DepotProcess.withServer { root, server in
            try Self.writeJSONTree(root)
            try await InProcessCLI.publish(["site"], to: server, in: root)
            let sync = try await InProcessCLI.run(["sync", "--server", server, "--dir", "cold", "--json"], token: nil, in: root)
            #expect(sync.status == 0, "\(sync.errors)")
            let report = try JSONDecoder().decode(SyncReport.self, from: Data(sync.output.utf8))
            #expect(
                report.files.count == 600 && report.files.allSatisfy { $0.outcome == .packed && $0.encoding == "br" },
                "\(report.files.prefix(2))"
            )
            #expect(try Self.holds(root, "cold", count: 600))
            let port = Int(server.split(separator: ":").last!)!
            let gzipPacks = try await RawHTTPConnection.with(port: port) { connection in
                let document = try await connection.request("GET", "/channels/stable").json
                let release = try await connection.request("GET", try #require(document["url"] as? String)).json
                var total = 0
                for page in try #require(release["pages"] as? [String]) {
                    total += try await connection.request("GET", "/packs/\(page)").body.count
                    let brotli = try await connection.request("GET", "/packs/\(page).br")
                    #expect(brotli.status == 200 && brotli.header("Content-Type") == "application/octet-stream")
                }
                return total
            }
            let files = report.files.reduce(0) { $0 + $1.bytesTransferred }
            #expect(files * 2 < Int64(gzipPacks), "\(files) bytes against \(gzipPacks) for the gzip packs")
        }
    }

    static func holds(_ root: URL, _ folder: String, count: Int) throws -> Bool {
        try (0..<count).allSatisfy { index in
            let path = "\(index / 100)/\(index).json"
            return try Data(contentsOf: root.appendingPathComponent("\(folder)/\(path)"))
                == Data(contentsOf: root.appendingPathComponent("site/\(path)"))
        }
    }

    @Test("behind the shipped nginx site, a cold sync gets every small file by pack")
    func throughNginx() async throws {
        try await DepotProcess.withServer { root, server in
            try Self.writeTree(root)
            try await InProcessCLI.publish(["site"], to: server, in: root)
            let port = Int(server.split(separator: ":").last!)!
            try await Nginx.with(depotPort: port) { nginx in
                for folder in ["first", "cached"] {
                    let sync = try await InProcessCLI.run(["sync", "--server", nginx.url(""), "--dir", folder, "--json"], token: nil, in: root)
                    #expect(sync.status == 0, "\(sync.errors)")
                    let report = try JSONDecoder().decode(SyncReport.self, from: Data(sync.output.utf8))
                    #expect(report.files.filter { $0.outcome == .packed }.count == Self.files, "\(folder)")
                }
            }
            #expect(
                try Data(contentsOf: root.appendingPathComponent("cached/7/799.bin"))
                    == Data(contentsOf: root.appendingPathComponent("site/7/799.bin"))
            )
        }
    }

    @Test("a cold sync fetches small files by pack; killed, the next sync fetches none of what was verified again")
    func killedPackSync() async throws {
        try await DepotProcess.withServer { root, server in
            try Self.writeTree(root)
            try await InProcessCLI.publish(["site"], to: server, in: root)
            let whole = try await InProcessCLI.run(["sync", "--server", server, "--dir", "whole", "--json"], token: nil, in: root)
            let wholeReport = try JSONDecoder().decode(SyncReport.self, from: Data(whole.output.utf8))
            #expect(wholeReport.files.filter { $0.outcome == .packed }.count == Self.files)

            let port = Int(server.split(separator: ":").last!)!
            try await FaultyRelay.with(upstreamPort: port) { relay in
                // Slow packs: the kill lands while some are verified and staged, others on the way.
                relay.slowDownBlobResponses(by: .milliseconds(400))
                let mirror = "http://127.0.0.1:\(relay.port)"
                let staging = root.appendingPathComponent("cold/.depot/staging")
                func verifiedFiles() -> Set<String> {
                    Set(((try? Fixture.files(below: staging)) ?? []).filter { !$0.contains(".") }.map { String($0.split(separator: "/").last!) })
                }
                // Killed once 100 files are verified and staged, however long that takes. No
                // minimum rate: the relay runs in the test process, which a loaded machine can
                // starve for longer than a rate window.
                try await DepotProcess.with(["sync", "--server", mirror, "--dir", "cold", "--minimum-rate", "0"], in: root) { sync in
                    // Hang guard: slowest seen 25.1 s under two busy loops (the whole test).
                    _ = try await poll(every: .milliseconds(5), for: .seconds(600)) { verifiedFiles().count >= 100 || !sync.isRunning ? true : nil }
                    sync.kill()
                    _ = try await sync.waitForExit()
                }
                let verified = verifiedFiles()
                #expect(verified.count >= 100, "the kill came after files were verified and staged")
                #expect(verified.count < Self.files, "and before all were")

                relay.slowDownBlobResponses(by: nil)
                let again = try await InProcessCLI.run(
                    ["sync", "--server", mirror, "--dir", "cold", "--json", "--minimum-rate", "0"],
                    token: nil,
                    in: root
                )
                #expect(again.status == 0, "\(again.errors)")
                let report = try JSONDecoder().decode(SyncReport.self, from: Data(again.output.utf8))
                let shas = try Dictionary(
                    uniqueKeysWithValues: (0..<Self.files).map {
                        ("\($0 / 100)/\($0).bin", Fixture.sha256(try Data(contentsOf: root.appendingPathComponent("site/\($0 / 100)/\($0).bin"))))
                    }
                )
                let refetched = report.files.filter { verified.contains(shas[$0.path] ?? "") && $0.bytesTransferred > 0 }
                #expect(refetched.isEmpty, "fetched again though verified: \(refetched.prefix(3).map(\.path))")
                #expect(report.files.filter { $0.outcome == .staged }.count == verified.count)
                for index in [0, 399, 799] {
                    let path = "\(index / 100)/\(index).bin"
                    #expect(
                        try Data(contentsOf: root.appendingPathComponent("cold/\(path)"))
                            == Data(contentsOf: root.appendingPathComponent("site/\(path)"))
                    )
                }
            }
        }
    }
}
