import Crypto
import DepotAPI
import DepotManifest
import DepotSigning
import DepotTestSupport
import Foundation
import Testing

/// `depot import`: an origin rebuilt from a published tree, every signature and hash checked on
/// the way in, serving what the old one served.
@Suite("depot import")
struct ImportTests {
    typealias Drill = DisasterDrillTests

    static func channel(_ name: String, server: InProcessServer) async throws -> ChannelDocument {
        let data = Data(try await server.connection { try await $0.request("GET", "/channels/\(name)").body })
        return try JSONDecoder().decode(ChannelDocument.self, from: data)
    }

    /// What a channel document says, less what a rebuilt origin signs anew.
    static func meaning(_ document: ChannelDocument) -> ChannelDocument {
        var document = document
        document.serial = 0
        document.expires = ""
        document.signatures = []
        return document
    }

    @Test(
        "imported from the origin's URL: each channel's document says what it said (release, rollout and salt, fallbacks, minimum version), serial +1000; the releases keep their ids"
    )
    func fidelity() async throws {
        try await Drill.withKey { root, key, publicKey in
            var before: [String: ChannelDocument] = [:]
            var releases = ""
            try await Drill.serving("data", key: key, in: root) { server, app in
                for version in 1...3 { try await Drill.publish(version, server: server, in: root) }
                let beta = try await InProcessCLI.run(["publish", "site", "--server", server, "--channel", "beta"], in: root)
                try #require(beta.status == 0, "\(beta.errors)")
                try root.write(Data("needs 3.0\n".utf8), to: "site/a.txt")
                let newer = try await InProcessCLI.run(
                    ["publish", "site", "--server", server, "--channel", "beta", "--minimum-client-version", "3.0", "--critical"],
                    in: root
                )
                try #require(newer.status == 0, "\(newer.errors)")
                let rollout = try await InProcessCLI.run(
                    ["rollout", "start", "2", "--channel", "stable", "--steps", "20,100", "--every", "1h", "--server", server],
                    in: root
                )
                try #require(rollout.status == 0, "\(rollout.errors)")
                for name in ["stable", "beta"] { before[name] = try await Self.channel(name, server: app) }
                #expect(before["stable"]?.rollout?.percent == 20 && before["beta"]?.fallbacks?.isEmpty == false)
                releases = try await InProcessCLI.run(["release", "ls", "--server", server], in: root).output

                let imported = try await InProcessCLI.run(
                    [
                        "import", "--from", server, "--data", "rebuilt", "--trusted-key", publicKey, "--channel", "stable", "--channel", "beta",
                        "--json",
                    ],
                    token: nil,
                    in: root
                )
                #expect(imported.status == 0, "\(imported.errors)")
                // Release 1 is named by no channel document, nor is it the parent of a release one
                // names: no mirror holds it, and it cannot come back.
                #expect(imported.output.contains(#""channels":2"#) && imported.output.contains(#""releases":4"#), "\(imported.output)")
            }
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(".rebuilt.tree").path), "the copy is removed once imported")
            try await Drill.serving("rebuilt", key: key, in: root) { server, app in
                for name in ["stable", "beta"] {
                    let after = try await Self.channel(name, server: app)
                    let old = try #require(before[name])
                    #expect(Self.meaning(after) == Self.meaning(old), "\(name)")
                    #expect(after.serial == old.serial + 1000)
                }
                let listed = try await InProcessCLI.run(["release", "ls", "--server", server], in: root).output
                let ids = { (text: String) in text.split(separator: "\n").map { $0.split(separator: "\t").prefix(2).joined(separator: " ") } }
                #expect(ids(listed) == ids(releases).filter { !$0.hasPrefix("1 ") }, "\(listed)")
                // The rollout came back halted: no install changes side until a person decides.
                let status = try await InProcessCLI.run(["rollout", "status", "--server", server], in: root)
                #expect(status.output.contains("halted"), "\(status.output)")
                // With the standard plan's steps from its percentage and its gate (the mirror holds
                // no plan): resumed, a bad release is still halted by its reports.
                let json = try await InProcessCLI.run(["rollout", "status", "--channel", "stable", "--json", "--server", server], in: root)
                let imported = try JSONDecoder().decode(RolloutInfo.self, from: Data(json.output.utf8))
                #expect(imported.steps == [20, 50, 100] && imported.everySeconds == 3600, "\(json.output)")
                #expect(imported.maxFailureRate == 0.02 && imported.minReports == 200 && imported.autoRollback, "\(json.output)")
                let resumed = try await InProcessCLI.run(["rollout", "rollback", "--channel", "stable", "--server", server], in: root)
                #expect(resumed.status == 0, "\(resumed.errors)")
            }
        }
    }

    @Test("imported with its brotli and zstd variants: the rebuilt origin lists them, serves them and negotiates them")
    func variants() async throws {
        try await Drill.withKey { root, key, publicKey in
            try root.write(Fixture.catalogRows, to: "site/catalog.txt")
            let variants = [
                "DEPOT_VARIANTS_BROTLI": "true", "DEPOT_VARIANTS_BROTLI_QUALITY": "9", "DEPOT_VARIANTS_ZSTD": "true",
                "DEPOT_VARIANTS_ZSTD_LEVEL": "12", "DEPOT_VARIANTS_BACKGROUND": "false",
            ]
            try await Drill.serving("data", key: key, in: root, extra: variants) { server in
                try await InProcessCLI.publish(["site"], to: server, in: root)
                let imported = try await InProcessCLI.run(
                    ["import", "--from", server, "--data", "rebuilt", "--trusted-key", publicKey, "--channel", "stable"],
                    token: nil,
                    in: root
                )
                #expect(imported.status == 0, "\(imported.errors)")
            }
            // The rebuilt origin makes no variants itself: what it serves came with the tree.
            try await Drill.serving("rebuilt", key: key, in: root) { _, app in
                try await app.connection { connection in
                    let entry = try #require(try await connection.releaseFiles().first { $0["path"] as? String == "catalog.txt" })
                    let sha256 = try #require(entry["sha256"] as? String)
                    for (key, suffix, coding) in [("brotli", "br", "br"), ("zstd", "zst", "zstd")] {
                        let listed = try #require(entry[key] as? [String: Any], "\(key) listed by the imported release")
                        let variant = try await connection.request("GET", "/blobs/\(sha256).\(suffix)")
                        #expect(variant.status == 200 && Fixture.sha256(variant.body) == listed["sha256"] as? String)
                        let negotiated = try await connection.request("GET", "/files/catalog.txt", headers: [("Accept-Encoding", coding)])
                        #expect(negotiated.header("Content-Encoding") == coding && negotiated.body == variant.body)
                    }
                }
            }
        }
    }

    @Test("refused, in one line, with nothing made: a tampered tree, a wrong key, a data folder in use, a source that is neither URL nor folder")
    func refusals() async throws {
        try await Drill.withKey { root, key, publicKey in
            let other = try await InProcessCLI.run(["keygen", "--out", "other.key"], token: nil, in: root)
            let otherKey = try #require(other.output.split(separator: " ").dropFirst(2).first.map(String.init))
            try await Drill.serving("data", key: key, in: root) { server in
                try await Drill.publish(1, server: server, in: root)
                let mirrored = try await InProcessCLI.run(
                    ["mirror", "--from", server, "--to", "tree", "--trusted-key", publicKey],
                    token: nil,
                    in: root
                )
                try #require(mirrored.status == 0, "\(mirrored.errors)")
            }
            // A tree whose file was changed after its release listed it.
            try FileManager.default.copyItem(at: root.appendingPathComponent("tree"), to: root.appendingPathComponent("tampered"))
            let blobs = root.appendingPathComponent("tampered/blobs")
            let blob = try #require(try FileManager.default.contentsOfDirectory(atPath: blobs.path).first { $0.count == 64 })
            try FileManager.default.removeItem(at: blobs.appendingPathComponent(blob))
            try Data("tampered".utf8).write(to: blobs.appendingPathComponent(blob))
            try root.write(Data("x".utf8), to: "in-use/catalog.sqlite")

            let cases: [(arguments: [String], message: String)] = [
                (["--from", "tampered", "--trusted-key", publicKey], "does not have the SHA-256 and size the release lists"),
                (["--from", "tree", "--trusted-key", otherKey], "is refused"),
                (["--from", "tree", "--trusted-key", publicKey, "--data", "in-use"], "in-use is not empty"),
                (["--from", "no-such-folder", "--trusted-key", publicKey], "not an http:// or https:// URL, nor a folder that exists"),
                (["--from", "tree"], "give --trusted-root or --trusted-key"),
            ]
            for (arguments, message) in cases {
                let data = arguments.contains("--data") ? [] : ["--data", "made"]
                let result = try await InProcessCLI.run(["import"] + arguments + data, token: nil, in: root)
                let lines = result.errors.split(separator: "\n")
                #expect(result.status != 0 && lines.count == 1 && result.errors.contains(message), "\(arguments): \(result.errors)")
                #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("made").path), "\(arguments)")
            }
            let imported = try await InProcessCLI.run(
                ["import", "--from", "tree", "--data", "made", "--trusted-key", publicKey],
                token: nil,
                in: root
            )
            #expect(imported.status == 0 && imported.output.contains("1 release(s)"), "\(imported.output) \(imported.errors)")
        }
    }

    /// A tree whose origin signed what no publish makes: `change` edits the one page's entries
    /// (or the release, or the channel document), and the tree is re-signed with the origin's
    /// key, as a stolen key or a broken origin would.
    static func forge(
        _ tree: URL,
        key: URL,
        entries change: (inout [ReleaseEntry]) -> Void = { _ in },
        release: (inout ReleaseDocument) -> Void = { _ in },
        channel: (inout ChannelDocument) -> Void = { _ in }
    ) throws {
        func sha256(_ bytes: Data) -> String { SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }
        let channelFile = tree.appendingPathComponent("channels/stable")
        var document = try JSONDecoder().decode(ChannelDocument.self, from: Data(contentsOf: channelFile))
        var releaseDocument = try JSONDecoder().decode(
            ReleaseDocument.self,
            from: Data(contentsOf: tree.appendingPathComponent("releases/\(document.release)"))
        )
        var page = try JSONDecoder().decode(
            ReleasePage.self,
            from: Data(contentsOf: tree.appendingPathComponent("pages/\(releaseDocument.pages[0])"))
        )
        change(&page.entries)
        let pageBytes = try JSONEncoder().encode(page)
        try pageBytes.write(to: tree.appendingPathComponent("pages/\(sha256(pageBytes))"))
        releaseDocument.pages[0] = sha256(pageBytes)
        release(&releaseDocument)
        let releaseBytes = try JSONEncoder().encode(releaseDocument)
        try releaseBytes.write(to: tree.appendingPathComponent("releases/\(sha256(releaseBytes))"))
        document = ChannelDocument(
            channel: document.channel,
            release: sha256(releaseBytes),
            number: releaseDocument.number,
            serial: document.serial + 1,
            expires: document.expires
        )
        channel(&document)
        let privateKey = try SigningKeyFile(contents: Array(try Data(contentsOf: key))).key
        document = document.signed(by: [privateKey])
        try JSONEncoder().encode(document).write(to: channelFile)
    }

    @Test(
        "attacks as a hostile tree signed with the origin's key, a planted file and a careless operator: each refused in one line, nothing made or lost"
    )
    func attacks() async throws {
        try await Drill.withKey { root, key, publicKey in
            try await Drill.serving("data", key: key, in: root) { server in
                try await Drill.publish(1, server: server, in: root)
                let mirrored = try await InProcessCLI.run(
                    ["mirror", "--from", server, "--to", "tree", "--trusted-key", publicKey],
                    token: nil,
                    in: root
                )
                try #require(mirrored.status == 0, "\(mirrored.errors)")
            }
            let manager = FileManager.default
            func scenario(_ name: String, _ forge: (URL) throws -> Void) throws -> String {
                let folder = root.appendingPathComponent("attack-\(name)")
                try manager.copyItem(at: root.appendingPathComponent("tree"), to: folder)
                try? manager.removeItem(at: folder.appendingPathComponent(".lock"))
                try forge(folder)
                return folder.lastPathComponent
            }
            let cases: [(source: String, message: String)] = [
                (try scenario("traversal") { try Self.forge($0, key: key, entries: { $0[0].path = "../../etc/evil" }) }, "has a . or .. segment"),
                (try scenario("absolute") { try Self.forge($0, key: key, entries: { $0[0].path = "a//b" }) }, "empty segment"),
                (try scenario("twice") { try Self.forge($0, key: key, entries: { $0.append($0[0]) }) }, "is listed twice"),
                (
                    try scenario("folder") { folder in
                        try Self.forge(
                            folder,
                            key: key,
                            entries: {
                                $0.append($0[0])
                                $0[$0.count - 1].path = $0[0].path + "/inside"
                            }
                        )
                    }, "collides with"
                ),
                (try scenario("version") { try Self.forge($0, key: key, entries: { $0[0].version = .max }) }, "has version"),
                (
                    try scenario("header") { try Self.forge($0, key: key, entries: { $0[0].contentType = "text/html\r\nSet-Cookie: x=1" }) },
                    "control character"
                ),
                (
                    try scenario("number") { try Self.forge($0, key: key, release: { $0.number = .max }, channel: { $0.number = .max }) },
                    "out of range"
                ),
                (try scenario("serial") { try Self.forge($0, key: key, channel: { $0.serial = .max }) }, "out of range"),
            ]
            for (source, message) in cases {
                let result = try await InProcessCLI.run(
                    ["import", "--from", source, "--data", "made", "--trusted-key", publicKey],
                    token: nil,
                    in: root
                )
                #expect(
                    result.status == 1 && result.errors.split(separator: "\n").count == 1 && result.errors.contains(message),
                    "\(source): \(result.errors)"
                )
                #expect(!manager.fileExists(atPath: root.appendingPathComponent("made").path), "\(source)")
            }

            // A link in the source folder is refused: the copy would read a file outside it.
            let linked = try scenario("link") { folder in
                let blobs = folder.appendingPathComponent("blobs")
                let blob = try #require(try manager.contentsOfDirectory(atPath: blobs.path).first { $0.count == 64 })
                try manager.moveItem(at: blobs.appendingPathComponent(blob), to: root.appendingPathComponent("outside"))
                try manager.createSymbolicLink(at: blobs.appendingPathComponent(blob), withDestinationURL: root.appendingPathComponent("outside"))
            }
            let link = try await InProcessCLI.run(["import", "--from", linked, "--data", "made", "--trusted-key", publicKey], token: nil, in: root)
            #expect(link.status == 1 && link.errors.contains("is not a plain file (a link or a folder)"), "\(link.errors)")

            // A --data that names a file (a config, by mistake) is refused, and the file kept.
            try root.write(Data("{}".utf8), to: "config.json")
            let file = try await InProcessCLI.run(
                ["import", "--from", "tree", "--data", "config.json", "--trusted-key", publicKey],
                token: nil,
                in: root
            )
            #expect(file.status == 1 && file.errors.contains("is not a folder (a file or a link)"), "\(file.errors)")
            #expect(manager.contents(atPath: root.appendingPathComponent("config.json").path) == Data("{}".utf8))

            // A release planted in a leftover copy, named by no channel document, is not taken.
            try manager.copyItem(at: root.appendingPathComponent("tree"), to: root.appendingPathComponent(".planted.tree"))
            try Self.forge(root.appendingPathComponent(".planted.tree"), key: key, release: { $0.number = 7 }, channel: { $0.serial = 0 })
            try manager.removeItem(at: root.appendingPathComponent(".planted.tree/channels/stable"))
            let planted = try await InProcessCLI.run(
                ["import", "--from", "tree", "--data", "planted", "--trusted-key", publicKey, "--json"],
                token: nil,
                in: root
            )
            #expect(planted.status == 0 && planted.output.contains(#""releases":1"#), "\(planted.output) \(planted.errors)")

            // The rebuilt blobs are copies: a writer of the source folder cannot change them.
            let blobs = root.appendingPathComponent("tree/blobs")
            let blob = try #require(try manager.contentsOfDirectory(atPath: blobs.path).first { $0.count == 64 })
            let source = try manager.attributesOfItem(atPath: blobs.appendingPathComponent(blob).path)[.systemFileNumber] as? Int
            let copy = root.appendingPathComponent("planted/blobs/\(blob.prefix(2))/\(blob)")
            let copied = try manager.attributesOfItem(atPath: copy.path)[.systemFileNumber] as? Int
            #expect(source != nil && source != copied)

            let unchecked = try await InProcessCLI.run(
                ["import", "--from", "tree", "--data", "made", "--without-signature-checks"],
                token: nil,
                in: root
            )
            #expect(unchecked.status == 64 && unchecked.errors.contains("depot import signs what it imports"), "\(unchecked.errors)")
        }
    }
}
