import DepotTestSupport
import Foundation
import Testing

/// Refusals as a new operator meets them: each is one `Error:` line, the documented exit status
/// (64 for wrong usage, 1 for the rest), and says what to do next.
@Suite("CLI refusals")
struct CLIRefusalTests {
    struct Row: Sendable, CustomStringConvertible {
        let arguments: [String]
        let token: String?
        let status: Int32
        let says: [String]

        var description: String { arguments.joined(separator: " ") }
    }

    static let reader = "name=reader read token=reader-secret"

    /// `S` stands for the server's URL.
    static let rows: [Row] = [
        Row(arguments: ["publsh", "site"], token: nil, status: 64, says: ["'publsh' is not a depot command: did you mean 'depot publish'?"]),
        Row(arguments: ["frobnicate"], token: nil, status: 64, says: ["'frobnicate' is not a depot command: depot --help lists them"]),
        Row(
            arguments: ["release", "promote", "99", "--server", "S"],
            token: InProcessCLI.token,
            status: 1,
            says: ["the server refused POST /v1/channels/stable/promote (404): There is no release 99", "depot release ls lists"]
        ),
        Row(arguments: ["release", "ls", "--server", "S"], token: nil, status: 1, says: ["no token: use --token-file FILE or set DEPOT_TOKEN"]),
        Row(
            arguments: ["release", "ls", "--server", "S"],
            token: "wrong-token",
            status: 1,
            says: [
                "the server refused the token (401): The token is not valid. Give one that its access.tokens lists, with --token-file FILE or DEPOT_TOKEN."
            ]
        ),
        Row(
            arguments: ["release", "promote", "1", "--server", "S"],
            token: "reader-secret",
            status: 1,
            says: [
                "POST /v1/channels/stable/promote (403): The token reader may not promote or roll back stable: see its scopes in access.tokens. "
                    + "Give a token with that scope, with --token-file FILE or DEPOT_TOKEN."
            ]
        ),
        Row(
            arguments: ["publish", "site", "--server", "S"],
            token: "reader-secret",
            status: 1,
            says: ["(403): The token reader may not publish"]
        ),
        Row(
            arguments: ["rollout", "start", "1", "--every", "soon", "--server", "S"],
            token: InProcessCLI.token,
            status: 64,
            says: ["'soon'", "--every"]
        ),
        Row(arguments: ["sync", "--dir", "out", "--rate-window", "0", "--server", "S"], token: nil, status: 64, says: ["--rate-window"]),
        // A wait past Int64's milliseconds crashed the command (SIGILL) before it was bounded.
        Row(arguments: ["sync", "--dir", "out", "--watch", "1e16", "--server", "S"], token: nil, status: 64, says: ["--watch takes at most 366d"]),
        Row(
            arguments: ["sync", "--dir", "out", "--watch", "1", "--max-backoff", "1e300", "--server", "S"],
            token: nil,
            status: 64,
            says: ["--max-backoff takes a duration over 0 and at most 366d"]
        ),
        Row(
            arguments: ["audit", "--limit", "0", "--server", "S"],
            token: InProcessCLI.token,
            status: 64,
            says: ["--limit takes a number from 1 to 10000"]
        ),
        Row(arguments: ["sync", "--dir", "site/a.txt", "--server", "S"], token: nil, status: 1, says: ["--dir site/a.txt is a file, not a folder"]),
        Row(
            arguments: ["sync", "--dir", "no-such/out", "--server", "S"],
            token: nil,
            status: 1,
            says: ["its parent folder", "does not exist (a typo?)"]
        ),
        Row(
            arguments: ["publish", "site", "--message", String(repeating: "m", count: 501), "--server", "S"],
            token: InProcessCLI.token,
            status: 1,
            says: ["(400): message is at most 500 bytes of UTF-8"]
        ),
        Row(
            arguments: ["serve", "--public", "nowhere", "--data", "fresh-data", "--port", "0"],
            token: nil,
            status: 1,
            says: ["The public folder nowhere does not exist: create it (mkdir nowhere), or serve another with --public DIR"]
        ),
        Row(
            arguments: ["backup", "--to", "copy", "--data", "nowhere"],
            token: nil,
            status: 1,
            says: ["holds no catalog.sqlite", "with --data DIR"]
        ),
        Row(arguments: ["restore", "--from", "nowhere", "--data", "restored"], token: nil, status: 1, says: ["it is not a depot backup"]),
        Row(
            arguments: ["import", "--from", "nowhere", "--data", "imported", "--trusted-key", "AAAA"],
            token: nil,
            status: 1,
            says: ["--from nowhere: not an http:// or https:// URL, nor a folder that exists"]
        ),
        Row(
            arguments: ["import", "--from", "http://127.0.0.1:1/", "--data", "imported", "--trusted-key", "AAAA"],
            token: nil,
            status: 64,
            says: ["a URL lists no channels: name each channel to import with --channel"]
        ),
        Row(
            arguments: ["mirror", "--from", "nowhere", "--to", "copy", "--without-signature-checks"],
            token: nil,
            status: 1,
            says: ["nor a folder that exists"]
        ),
        Row(arguments: ["export", "--data", "nowhere", "--to", "copy"], token: nil, status: 1, says: ["no signing key", "or --unsigned"]),
        Row(arguments: ["keygen", "--out", "nowhere/channel.key"], token: nil, status: 1, says: ["cannot create nowhere/channel.key"]),
        Row(arguments: ["root", "verify", "nowhere.json"], token: nil, status: 1, says: ["cannot read nowhere.json"]),
        Row(arguments: ["delta", "make", "nowhere", "b", "c"], token: nil, status: 1, says: ["Cannot open nowhere"]),
        Row(arguments: ["ls", "--server", "http://127.0.0.1:1"], token: nil, status: 1, says: ["cannot connect to http://127.0.0.1:1"]),
    ]

    @Test("each refusal: one Error line, its exit status, and the next step")
    func refusals() async throws {
        try await InProcessCLI.withServer(environment: ["DEPOT_ACCESS_TOKENS": Self.reader]) { root, server in
            try root.write(Data("one\n".utf8), to: "site/a.txt")
            try await InProcessCLI.publish(["site"], to: server, in: root)
            for row in Self.rows {
                let arguments = row.arguments.map { $0 == "S" ? server : $0 }
                let result = try await InProcessCLI.run(arguments, token: row.token, in: root)
                #expect(result.status == row.status, "\(row): \(result.status) \(result.errors)")
                #expect(result.errors.split(separator: "\n").count == 1, "\(row): \(result.errors)")
                for text in row.says { #expect(result.errors.contains(text), "\(row): \(result.errors)") }
            }
            // The refused commands made nothing.
            for made in ["fresh-data", "restored", "imported", "copy"] {
                #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(made).path), "\(made)")
            }
            // A read token runs the read-only commands.
            let listed = try await InProcessCLI.run(["release", "ls", "--json", "--server", server], token: "reader-secret", in: root)
            #expect(listed.status == 0, "\(listed.errors)")
            // One JSON document, with both lists.
            let document = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any]
            #expect(document?["releases"] is [Any] && document?["channels"] is [Any], "\(listed.output)")
        }
    }

    @Test("durations read alike everywhere: --every 1h, --rate-window 2m, --document-timeout 90s; a rollback during a rollout says so")
    func durationsAndRollback() async throws {
        try await InProcessCLI.withServer { root, server, app in
            for version in 1...2 {
                try root.write(Data("version \(version)\n".utf8), to: "site/a.txt")
                try await InProcessCLI.publish(["site"], to: server, in: root)
            }
            // A check of a new folder makes nothing, and says it makes nothing.
            let checked = try await InProcessCLI.run(["sync", "--dir", "out", "--check", "--server", server], token: nil, in: root)
            #expect(checked.status == 0 && !checked.output.contains("is new"), "\(checked.output) \(checked.errors)")
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("out").path), "the check made its folder")
            let synced = try await InProcessCLI.run(
                ["sync", "--dir", "out", "--rate-window", "2m", "--document-timeout", "90s", "--server", server],
                token: nil,
                in: root
            )
            #expect(synced.status == 0, "\(synced.errors)")
            #expect(synced.output.contains("--dir out is new: making it"), "a new folder is said, not made silently: \(synced.output)")
            let again = try await InProcessCLI.run(["sync", "--dir", "out", "--server", server], token: nil, in: root)
            #expect(again.status == 0 && !again.output.contains("is new"), "\(again.output)")
            #expect(try await InProcessCLI.run(["release", "rollback", "--server", server], in: root).status == 0)
            let started = try await InProcessCLI.run(["rollout", "start", "2", "--every", "1h", "--server", server], in: root)
            #expect(started.status == 0, "\(started.errors)")
            let back = try await InProcessCLI.run(["release", "rollback", "--server", server], in: root)
            #expect(
                back.output.contains("stable: stays on release 1; the rollout of release 2 was rolled back, its installs return to release 1"),
                "\(back.output) \(back.errors)"
            )
            let status = try await InProcessCLI.run(["rollout", "status", "--json", "--server", server], in: root)
            #expect(status.output.contains(#""everySeconds":3600"#), "\(status.output)")
            // The API reads a duration by the CLI's rule (the dashboard's start form sends one).
            for (every, answer) in [("soon", "is not a duration"), ("0", "is not a duration")] {
                let response = try await app.connection {
                    try await $0.request(
                        "POST",
                        "/v1/channels/beta/rollout",
                        headers: [("Authorization", "Bearer \(InProcessCLI.token)")],
                        body: Array(#"{"release": "1", "every": "\#(every)"}"#.utf8)
                    )
                }
                #expect(response.status == 400 && response.bodyText.contains(answer), "\(every)")
            }
        }
    }

    @Test("publish --message: the note is shown by release ls and recorded in the audit trail")
    func message() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Data("one\n".utf8), to: "site/a.txt")
            let published = try await InProcessCLI.run(["publish", "site", "--message", "Gare du Nord reopened", "--server", server], in: root)
            #expect(published.status == 0, "\(published.errors)")
            let listed = try await InProcessCLI.run(["release", "ls", "--server", server], in: root)
            #expect(listed.output.contains("\t\"Gare du Nord reopened\""), "\(listed.output)")
            let audit = try await InProcessCLI.run(["audit", "--server", server], in: root)
            #expect(audit.output.contains("publish") && audit.output.contains(": Gare du Nord reopened"), "\(audit.output)")
        }
    }

    @Test("keygen, export and mirror take --json: one document each")
    func json() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Data("one\n".utf8), to: "site/a.txt")
            try await InProcessCLI.publish(["site"], to: server, in: root)
            func document(_ arguments: [String]) async throws -> [String: Any] {
                let result = try await InProcessCLI.run(arguments, token: nil, in: root)
                #expect(result.status == 0, "\(arguments): \(result.errors)")
                return try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] ?? [:]
            }
            let key = try await document(["keygen", "--out", "k.key", "--json"])
            #expect((key["publicKey"] as? String)?.count == 44 && key["keyID"] is String && key["file"] as? String == "k.key", "\(key)")
            let exported = try await document(["export", "--to", "out", "--unsigned", "--data", "data", "--json"])
            #expect(exported["releases"] as? Int == 1 && (exported["files"] as? Int ?? 0) > 0, "\(exported)")
            let mirrored = try await document(["mirror", "--from", server, "--to", "copy", "--without-signature-checks", "--json"])
            let channels = mirrored["channels"] as? [[String: Any]]
            #expect(channels?.first?["channel"] as? String == "stable" && channels?.first?["release"] as? Int == 1, "\(mirrored)")
        }
    }
}
