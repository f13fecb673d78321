import DepotManifest
import DepotTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `depot import`: an origin rebuilt from a published tree, every signature and hash checked on
/// the way in, serving what the old one served.
@Suite("depot import")
struct ImportTests {
    typealias Drill = DisasterDrillTests

    static func channel(_ name: String, server: String) async throws -> ChannelDocument {
        let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: "\(server)/channels/\(name)")))
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
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            let key = root.appendingPathComponent("channel.key")
            let made = try await DepotCLI.run(["keygen", "--out", key.path], token: nil, in: root)
            let publicKey = try #require(made.output.split(separator: " ").dropFirst(2).first.map(String.init))
            var before: [String: ChannelDocument] = [:]
            var releases = ""
            try await Drill.serving("data", key: key, in: root) { server in
                for version in 1...3 { try await Drill.publish(version, server: server, in: root) }
                let beta = try await DepotCLI.run(["publish", "site", "--server", server, "--channel", "beta"], in: root)
                try #require(beta.status == 0, "\(beta.errors)")
                try root.write(Data("needs 3.0\n".utf8), to: "site/a.txt")
                let newer = try await DepotCLI.run(
                    ["publish", "site", "--server", server, "--channel", "beta", "--minimum-client-version", "3.0", "--critical"],
                    in: root
                )
                try #require(newer.status == 0, "\(newer.errors)")
                let rollout = try await DepotCLI.run(
                    ["rollout", "start", "2", "--channel", "stable", "--steps", "20,100", "--every", "1h", "--server", server],
                    in: root
                )
                try #require(rollout.status == 0, "\(rollout.errors)")
                for name in ["stable", "beta"] { before[name] = try await Self.channel(name, server: server) }
                #expect(before["stable"]?.rollout?.percent == 20 && before["beta"]?.fallbacks?.isEmpty == false)
                releases = try await DepotCLI.run(["release", "ls", "--server", server], in: root).output

                let imported = try await DepotCLI.run(
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
            try await Drill.serving("rebuilt", key: key, in: root) { server in
                for name in ["stable", "beta"] {
                    let after = try await Self.channel(name, server: server)
                    let old = try #require(before[name])
                    #expect(Self.meaning(after) == Self.meaning(old), "\(name)")
                    #expect(after.serial == old.serial + 1000)
                }
                let listed = try await DepotCLI.run(["release", "ls", "--server", server], in: root).output
                let ids = { (text: String) in text.split(separator: "\n").map { $0.split(separator: "\t").prefix(2).joined(separator: " ") } }
                #expect(ids(listed) == ids(releases).filter { !$0.hasPrefix("1 ") }, "\(listed)")
                // The rollout came back halted: no install changes side until a person decides.
                let status = try await DepotCLI.run(["rollout", "status", "--server", server], in: root)
                #expect(status.output.contains("halted"), "\(status.output)")
                let resumed = try await DepotCLI.run(["rollout", "rollback", "--channel", "stable", "--server", server], in: root)
                #expect(resumed.status == 0, "\(resumed.errors)")
            }
        }
    }

    @Test("refused, in one line, with nothing made: a tampered tree, a wrong key, a data folder in use, a source that is neither URL nor folder")
    func refusals() async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            let key = root.appendingPathComponent("channel.key")
            let made = try await DepotCLI.run(["keygen", "--out", key.path], token: nil, in: root)
            let publicKey = try #require(made.output.split(separator: " ").dropFirst(2).first.map(String.init))
            let other = try await DepotCLI.run(["keygen", "--out", "other.key"], token: nil, in: root)
            let otherKey = try #require(other.output.split(separator: " ").dropFirst(2).first.map(String.init))
            try await Drill.serving("data", key: key, in: root) { server in
                try await Drill.publish(1, server: server, in: root)
                let mirrored = try await DepotCLI.run(["mirror", "--from", server, "--to", "tree", "--trusted-key", publicKey], token: nil, in: root)
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
                let result = try await DepotCLI.run(["import"] + arguments + data, token: nil, in: root)
                let lines = result.errors.split(separator: "\n")
                #expect(result.status != 0 && lines.count == 1 && result.errors.contains(message), "\(arguments): \(result.errors)")
                #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("made").path), "\(arguments)")
            }
            let imported = try await DepotCLI.run(["import", "--from", "tree", "--data", "made", "--trusted-key", publicKey], token: nil, in: root)
            #expect(imported.status == 0 && imported.output.contains("1 release(s)"), "\(imported.output) \(imported.errors)")
        }
    }
}
