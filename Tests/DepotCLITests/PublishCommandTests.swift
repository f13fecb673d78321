import DepotAPI
import DepotTestSupport
import Foundation
import Testing

/// `depot publish` and `depot ls`, run in process against a Depot application in process.
@Suite("depot publish and depot ls")
struct PublishCommandTests {
    @Test("a published file's manifest entry has the digests of the file")
    func publishFile() async throws {
        let data = Fixture.text + Fixture.noise
        try await InProcessCLI.withServer { root, server in
            try root.write(data, to: "catalog.sqlite")
            let result = try await InProcessCLI.run(["publish", "catalog.sqlite", "--as", "db/catalog.sqlite", "--server", server], in: root)
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output.contains("published db/catalog.sqlite v1"))
            #expect(result.output.contains("release 1 on stable: 1 files, "))
            #expect(result.output.split(separator: "\n").filter { !$0.isEmpty && !$0.hasPrefix("depot publish: ") }.count == 2)

            let listing = try await InProcessCLI.run(["ls", "--server", server, "--json"], token: nil, in: root)
            let manifest = try JSONSerialization.jsonObject(with: Data(listing.output.utf8)) as? [String: Any]
            let entry = try #require((manifest?["files"] as? [[String: Any]])?.first)
            #expect(entry["path"] as? String == "db/catalog.sqlite")
            #expect(entry["sha256"] as? String == Fixture.sha256(data))
            #expect(entry["md5"] as? String == Fixture.md5(data))

            let again = try await InProcessCLI.run(
                ["publish", "catalog.sqlite", "--as", "db/catalog.sqlite", "--server", server, "--json", "--no-index"],
                in: root
            )
            let reply = try APIJSON.decode(CommitReply.self, from: Array(again.output.utf8))
            #expect(!reply.created)
            #expect(reply.files.isEmpty, "only what changed is listed")
            #expect(reply.unchanged == 1)
        }
    }

    @Test("a folder publishes every file below it, hidden ones excepted; ls lists them")
    func publishFolder() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Data("a\n".utf8), to: "site/a.txt")
            try root.write(Data("b\n".utf8), to: "site/img/b.txt")
            try root.write(Data("secret\n".utf8), to: "site/.env")
            let result = try await InProcessCLI.run(["publish", "site", "--as", "web", "--server", server], in: root)
            #expect(result.status == 0, "\(result.errors)")
            let listing = try await InProcessCLI.run(["ls", "--server", server], token: nil, in: root)
            #expect(listing.output.contains("web/a.txt\tv1"))
            #expect(listing.output.contains("web/img/b.txt\tv1"))
            #expect(!listing.output.contains(".env"))
            #expect(listing.output.contains("2 files"))
        }
    }

    @Test("a progress bar is drawn on a terminal and not when piped")
    func progressBar() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Fixture.pseudoRandom(count: 8 << 20, seed: 3), to: "big.bin")
            try root.write(Fixture.pseudoRandom(count: 8 << 20, seed: 5), to: "big2.bin")
            let piped = try await InProcessCLI.run(["publish", "big.bin", "--server", server], in: root)
            #expect(!piped.output.contains("ETA"))
            // As on a terminal: the command's own isatty(2) is `CommandEnvironment.process`'s.
            let terminal = try await InProcessCLI.run(["publish", "big2.bin", "--server", server], isTerminal: true, in: root).output
            #expect(terminal.contains("ETA"))
            #expect(terminal.contains("8.4 MB / 8.4 MB"))
            #expect(terminal.contains("published big2.bin v1"))
        }
    }

    @Test("refusals end with one clear line and a non-zero exit")
    func refusals() async throws {
        try await InProcessCLI.withServer(environment: ["DEPOT_PUBLISH_MAX_UPLOAD_BYTES": "1000"]) { root, server in
            try root.write(Data("small\n".utf8), to: "small.txt")
            try root.write(Fixture.noise, to: "large.bin")
            let cases: [([String], String?, String)] = [
                (["publish", "small.txt", "--server", server], "wrong-token", "the server refused the token (401)"),
                (["publish", "large.bin", "--server", server], InProcessCLI.token, "larger than the server accepts (413)"),
                (["publish", "missing.txt", "--server", server], InProcessCLI.token, "no such file: missing.txt"),
                (["publish", "small.txt", "--server", "http://127.0.0.1:9"], InProcessCLI.token, "connection refused"),
                (["publish", "small.txt", "--server", server], nil, "no token: use --token-file"),
                (["ls", "--server", "http://127.0.0.1:9"], nil, "connection refused"),
            ]
            for (arguments, token, message) in cases {
                let result = try await InProcessCLI.run(arguments, token: token, in: root)
                #expect(result.status != 0, "\(arguments)")
                #expect(result.errors.contains(message), "\(arguments): \(result.errors)")
                #expect(result.errors.split(separator: "\n").count == 1, "\(arguments): \(result.errors)")
            }
            let listing = try await InProcessCLI.run(["ls", "--server", server], token: nil, in: root)
            #expect(listing.output.contains("0 files"))
        }
    }
}
