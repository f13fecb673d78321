import DepotClient
import DepotManifest
import DepotTestSupport
import Foundation
import Testing

/// Cold syncs of many small files through `/packs/{page}`: a page's files in one request, by
/// gzip or brotli, against the server in process (behind the shipped nginx site and after a
/// kill: the suites "Syncs through the shipped nginx site" and "Syncs killed mid-way").
@Suite("Packs")
struct PackSyncTests {
    @Test("a pack answers the page's small files in order, with ranges and immutable caching; an unknown page is 404")
    func packAnswers() async throws {
        try await InProcessCLI.withServer { root, server, app in
            try PackTree.writeTree(root)
            try await InProcessCLI.publish(["site"], to: server, in: root)
            try await app.connection { connection in
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
        try await InProcessCLI.withServer { root, server, app in
            try Self.writeJSONTree(root)
            try await InProcessCLI.publish(["site"], to: server, in: root)
            // No minimum rate: the server runs in the test process, which a loaded machine can
            // starve for longer than a rate window; the rate is not the subject here.
            let sync = try await InProcessCLI.run(
                ["sync", "--server", server, "--dir", "cold", "--json", "--minimum-rate", "0"],
                token: nil,
                in: root
            )
            #expect(sync.status == 0, "\(sync.errors)")
            let report = try JSONDecoder().decode(SyncReport.self, from: Data(sync.output.utf8))
            #expect(
                report.files.count == 600 && report.files.allSatisfy { $0.outcome == .packed && $0.encoding == "br" },
                "\(report.files.prefix(2))"
            )
            #expect(try Self.holds(root, "cold", count: 600))
            let gzipPacks = try await app.connection { connection in
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
}
