import DepotClient
import DepotTestSupport
import Foundation
import Testing

@testable import DepotCommands

/// How the CLI says a failure: under `--json` one object on standard output with a code and an
/// exit status by kind; whole sentences for the server's 401 and 403; never a URL's password.
@Suite("CLI error texts")
struct CLIErrorTextTests {
    /// (code, its exit status): the table of `depot sync --help` and docs/cli.md.
    static let kinds: [(SyncError.Code, String, Int32)] = [
        (.network, "network", 2), (.untrusted, "untrusted", 3), (.incompatible, "incompatible", 4), (.overBudget, "over-budget", 4),
        (.noSpace, "no-space", 4),
        (.inUse, "in-use", 5), (.notStaged, "not-staged", 5), (.server, "server", 1), (.corrupt, "corrupt", 1), (.io, "io", 1),
    ]

    @Test("one table from a sync's error to its code and exit status", arguments: kinds)
    func kind(code: SyncError.Code, name: String, status: Int32) {
        let document = FailureDocument(SyncError(code, "it failed"))
        #expect(document.error == FailureDocument.Body(code: name, message: "it failed", status: status))
    }

    @Test("a usage error is 64, any other failure 1")
    func otherKinds() {
        #expect(FailureKind(of: CommandFailure("--server x is not a URL.", kind: .usage)).status == 64)
        #expect(FailureKind(of: CommandFailure("2 files could not be synced")) == .failed)
        #expect(FailureKind(of: CancellationError()).status == 1)
    }

    /// (text, as printed).
    static let redactions: [(String, String)] = [
        ("http://user:PASS@host/", "http://host/"),
        (
            "from https://u:p%40ss@mirror.example:8443/a after http://127.0.0.1:9/ failed",
            "from https://mirror.example:8443/a after http://127.0.0.1:9/ failed"
        ),
        ("http://token@host", "http://host"),
        ("http://us:p@ss@host/x@y", "http://host/x@y"),
        (
            #"{"server":"http://a:b@h:1/","failovers":[{"server":"http://h:2","error":"x@y"}]}"#,
            #"{"server":"http://h:1/","failovers":[{"server":"http://h:2","error":"x@y"}]}"#
        ),
        ("mail a@b.example, see http://host/?q=a@b", "mail a@b.example, see http://host/?q=a@b"),
    ]

    @Test("URLs are printed without their credentials, and nothing else is changed", arguments: redactions)
    func redaction(text: String, printed: String) {
        #expect(redactingCredentials(in: text) == printed)
    }

    @Test(
        "a printed line: credentials left out, control characters written out, so a hostile path or error cannot forge a line or drive the terminal",
        arguments: [
            ("failed evil\n\u{1B}[31mSync OK: \"x\"\u{07}.txt: 404", #"failed evil\u{a}\u{1b}[31mSync OK: "x"\u{7}.txt: 404"#),
            ("from http://user:pw@host/ after\r\n", #"from http://host/ after\u{d}\u{a}"#),
            ("3 updated, 0 unchanged: café ✓", "3 updated, 0 unchanged: café ✓"),
        ]
    )
    func printableLines(text: String, printed: String) {
        #expect(printable(text) == printed)
    }

    @Test("sync --json with a file that fails: the report, which names it, is the one object on standard output; status 1")
    func jsonFileFailure() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Data("one\n".utf8), to: "site/a.txt")
            try root.write(Data(String(repeating: "two ", count: 100).utf8), to: "site/b.txt")
            try await InProcessCLI.publish(["site"], to: server, in: root)
            // The origin loses one stored file: its download fails, the other's goes through.
            let blobs = root.appendingPathComponent("data/blobs")
            let shards = try FileManager.default.contentsOfDirectory(atPath: blobs.path)
            let lost = try #require(
                shards.flatMap { shard in
                    (try? FileManager.default.contentsOfDirectory(atPath: blobs.appendingPathComponent(shard).path))?.map { "\(shard)/\($0)" } ?? []
                }.first { $0.hasPrefix("2c/") }
            )
            try FileManager.default.removeItem(at: blobs.appendingPathComponent(lost))
            let (exit, log) = try await InProcessCLI.log(["sync", "--dir", "out", "--json", "--server", server], in: root)
            #expect(exit == 1, "\(log)")
            #expect(log.split(separator: "\n").count == 1, "one line: \(log)")
            let report = try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [String: Any]
            let failed = (report?["files"] as? [[String: Any]])?.filter { $0["outcome"] as? String == "failed" }
            #expect(failed?.count == 1 && report?["error"] == nil, "\(log)")
        }
    }

    @Test("the server's 401 and 403 in whole sentences, with the one next step that fits")
    func refusals() {
        let none = PublisherAPI.refusal(
            method: "GET",
            path: "/v1/releases",
            status: 401,
            message: "No token is configured: set access.tokens (or publish.tokens) to use this API",
            challenges: [#"Bearer realm="depot""#]
        )
        #expect(
            none
                == "the server refused the token (401): No token is configured: set access.tokens (or publish.tokens) to use this API. "
                + "That is the server's setting: no token given here helps until its operator sets one."
        )
        let wrong = PublisherAPI.refusal(
            method: "GET",
            path: "/v1/releases",
            status: 401,
            message: "The token is not valid",
            challenges: [#"Bearer realm="depot", error="invalid_token""#]
        )
        #expect(
            wrong
                == "the server refused the token (401): The token is not valid. Give one that its access.tokens lists, with --token-file FILE or DEPOT_TOKEN."
        )
        let scope = PublisherAPI.refusal(
            method: "POST",
            path: "/v1/channels/stable/promote",
            status: 403,
            message: "The token reader may not promote or roll back stable: see its scopes in access.tokens"
        )
        #expect(
            scope == "the server refused POST /v1/channels/stable/promote (403): The token reader may not promote or roll back stable: "
                + "see its scopes in access.tokens. Give a token with that scope, with --token-file FILE or DEPOT_TOKEN."
        )
    }

    @Test("a server with no token configured: the 401 says the server's setting, not --token-file")
    func noTokenConfigured() async throws {
        try await InProcessCLI.withServer(publishToken: nil) { root, server in
            let listed = try await InProcessCLI.run(["release", "ls", "--server", server], token: "some-token", in: root)
            #expect(listed.status == 1)
            #expect(listed.errors.contains("No token is configured: set access.tokens"), "\(listed.errors)")
            #expect(listed.errors.contains("no token given here helps until its operator sets one."), "\(listed.errors)")
            #expect(!listed.errors.contains("--token-file"), "\(listed.errors)")
        }
    }

    @Test("sync --json: a failure is one object on standard output, with its code and exit status; nothing on standard error")
    func jsonErrors() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Data("one\n".utf8), to: "a.txt")
            try await InProcessCLI.publish(["a.txt"], to: server, in: root)
            let key = try await InProcessCLI.run(["keygen", "--out", "k.key"], token: nil, in: root)
            let publicKey = try #require(key.output.split(separator: " ").dropFirst(2).first.map(String.init))
            let cases: [([String], String, Int32)] = [
                (["--server", "http://user:SECRET@127.0.0.1:9"], "network", 2),
                (["--server", server, "--trusted-key", publicKey], "untrusted", 3),
                (["--server", server, "--parallel", "0"], "usage", 64),
                (["--server", server, "--minimum-rate=-1"], "usage", 64),
                (["--apply"], "not-staged", 5),
            ]
            for (arguments, code, status) in cases {
                let (exit, log) = try await InProcessCLI.log(["sync", "--dir", "out", "--json"] + arguments, in: root)
                #expect(exit == status, "\(arguments): \(log)")
                let lines = log.split(separator: "\n")
                #expect(lines.count == 1, "one line, the JSON object, and no text: \(log)")
                let document = try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [String: [String: Any]]
                #expect(document?["error"]?["code"] as? String == code, "\(arguments): \(log)")
                #expect(document?["error"]?["status"] as? Int == Int(status), "\(log)")
                #expect((document?["error"]?["message"] as? String)?.isEmpty == false, "\(log)")
                #expect(!log.contains("SECRET"), "\(log)")
            }
            // Without --json: the same status, one Error: line.
            let text = try await InProcessCLI.run(["sync", "--dir", "out", "--server", "http://user:SECRET@127.0.0.1:9"], token: nil, in: root)
            #expect(text.status == 2 && text.errors.split(separator: "\n").count == 1, "\(text.errors)")
            #expect(text.errors.contains("127.0.0.1:9") && !text.errors.contains("SECRET"), "\(text.errors)")
        }
    }

    @Test("a failover from a server with credentials: the summary and --json name it without them")
    func failoverRedacted() async throws {
        try await InProcessCLI.withServer { root, server in
            try root.write(Data("one\n".utf8), to: "a.txt")
            try await InProcessCLI.publish(["a.txt"], to: server, in: root)
            let sync = ["sync", "--server", "http://user:SECRET@127.0.0.1:9", "--fallback-server", server]
            let text = try await InProcessCLI.run(sync + ["--dir", "out"], token: nil, in: root)
            #expect(text.status == 0, "\(text.errors)")
            #expect(text.output.contains("after http://127.0.0.1:9/ failed"), "\(text.output)")
            let json = try await InProcessCLI.run(sync + ["--dir", "out2", "--json"], token: nil, in: root)
            #expect(json.status == 0 && json.output.contains("http://127.0.0.1:9/"), "\(json.output)")
            #expect(!text.output.contains("SECRET") && !json.output.contains("SECRET"), "\(text.output) \(json.output)")
        }
    }
}
