import DepotAPI
import DepotTestSupport
import Foundation
import Testing

/// Releases and channels as a user drives them: `depot publish DIR` makes one release and
/// uploads only what the server lacks, `depot release` lists, promotes and rolls back, and
/// `depot sync` follows a channel, signed or not. In process (InProcessCLI): killing a sync is
/// CrashSafetyTests' subject (SyncKillTests).
@Suite("depot release, and releases end to end")
struct ReleaseCommandTests {
    @Test("a folder is one release; publishing it again uploads only what changed; --delete and --replace take files out")
    func publishFolder() async throws {
        try await InProcessCLI.withServer { root, server in
            for index in 0..<20 { try root.write(Data("asset \(index)\n".utf8), to: "site/img/\(index).txt") }
            try root.write(Fixture.noise, to: "site/db.bin")
            let first = try await InProcessCLI.run(["publish", "site", "--server", server], in: root)
            #expect(first.status == 0, "\(first.errors)")
            #expect(first.output.contains("release 1 on stable: 21 files, "))

            let changed = Fixture.pseudoRandom(count: 1000, seed: 9)
            try root.write(changed, to: "site/img/3.txt")
            let second = try await InProcessCLI.run(["publish", "site", "--server", server], in: root)
            #expect(second.output.contains("release 2 on stable: 21 files (1 published, 20 unchanged), 1.0 KB uploaded"), "\(second.output)")
            #expect(
                second.output.split(separator: "\n").filter { !$0.isEmpty && !$0.hasPrefix("depot publish: ") } == [
                    "published img/3.txt v2 (1.0 KB) sha256 \(Fixture.sha256(changed).prefix(12))…",
                    "release 2 on stable: 21 files (1 published, 20 unchanged), 1.0 KB uploaded",
                ]
            )

            let unchanged = try await InProcessCLI.run(["publish", "site", "--server", server], in: root)
            #expect(unchanged.output.contains("nothing changed: stable stays on release 2"))

            let deleted = try await InProcessCLI.run(["publish", "--delete", "img/0.txt", "--server", server], in: root)
            #expect(deleted.output.contains("removed img/0.txt") && deleted.output.contains("release 3 on stable: 20 files"), "\(deleted.output)")

            try FileManager.default.removeItem(at: root.appendingPathComponent("site/img"))
            let replaced = try await InProcessCLI.run(["publish", "site", "--replace", "--server", server], in: root)
            #expect(replaced.output.contains("release 4 on stable: 1 files (0 published, 1 unchanged), 0 B uploaded"), "\(replaced.output)")
            let listing = try await InProcessCLI.run(["ls", "--server", server], token: nil, in: root)
            #expect(listing.output.contains("db.bin\tv1") && listing.output.contains("1 files, release 4 on stable"))
        }
    }

    @Test("promote and rollback re-point channels with no upload; a sync follows each")
    func promoteAndRollback() async throws {
        try await InProcessCLI.withServer { root, server in
            for version in 1...3 {
                try root.write(Data("version \(version)\n".utf8), to: "site/a.txt")
                try root.write(Data("only in \(version)\n".utf8), to: "site/only-\(version).txt")
                if version > 1 { try FileManager.default.removeItem(at: root.appendingPathComponent("site/only-\(version - 1).txt")) }
                try await InProcessCLI.publish(["site", "--replace"], to: server, in: root)
            }
            let listing = try await InProcessCLI.run(["release", "ls", "--server", server], in: root)
            #expect(listing.output.split(separator: "\n").first?.hasPrefix("3\t") == true && listing.output.contains("← stable"), "\(listing.output)")

            #expect(try await InProcessCLI.run(["sync", "--server", server, "--dir", "out"], token: nil, in: root).status == 0)
            #expect(try String(contentsOf: root.appendingPathComponent("out/a.txt"), encoding: .utf8) == "version 3\n")

            let back = try await InProcessCLI.run(["release", "rollback", "--server", server], in: root)
            #expect(back.output.contains("stable: release 3 → 2 (1 added, 1 changed, 1 removed)"), "\(back.output)")
            let synced = try await InProcessCLI.run(["sync", "--server", server, "--dir", "out"], token: nil, in: root)
            #expect(synced.output.contains("release 2 of stable"), "\(synced.output)")
            #expect(try String(contentsOf: root.appendingPathComponent("out/a.txt"), encoding: .utf8) == "version 2\n")
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/only-2.txt").path))
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("out/only-3.txt").path))

            #expect(try await InProcessCLI.run(["release", "rollback", "--server", server], in: root).status == 0)
            let nothingEarlier = try await InProcessCLI.run(["release", "rollback", "--server", server], in: root)
            #expect(nothingEarlier.status != 0 && nothingEarlier.errors.contains("(409)") && nothingEarlier.errors.contains("no earlier release"))

            let promoted = try await InProcessCLI.run(["release", "promote", "3", "--channel", "beta", "--server", server], in: root)
            #expect(promoted.output.contains("beta: release none → 3"), "\(promoted.output)")
            #expect(try await InProcessCLI.run(["sync", "--server", server, "--dir", "beta", "--channel", "beta"], token: nil, in: root).status == 0)
            #expect(try String(contentsOf: root.appendingPathComponent("beta/a.txt"), encoding: .utf8) == "version 3\n")
        }
    }

    @Test("bad requests get a clear 4xx and leave the live release unchanged")
    func refusals() async throws {
        try await InProcessCLI.withServer { root, server, app in
            try root.write(Data("a\n".utf8), to: "site/a.txt")
            try await InProcessCLI.publish(["site"], to: server, in: root)
            let channelBefore = try await app.connection { try await $0.request("GET", "/channels/stable").bodyText }

            let cli: [([String], String)] = [
                (["release", "promote", "99", "--server", server], "(404): There is no release 99"),
                (["release", "promote", "1", "--channel", "Not_A_Channel", "--server", server], "(400)"),
                (["release", "rollback", "--channel", "nothing", "--server", server], "(404)"),
                (["publish", "site/a.txt", "--channel", "UPPER", "--server", server], "(400)"),
            ]
            for (arguments, message) in cli {
                let result = try await InProcessCLI.run(arguments, in: root)
                #expect(result.status != 0 && result.errors.contains(message), "\(arguments): \(result.errors)")
                #expect(result.errors.split(separator: "\n").count == 1)
            }
            try root.write(Data("A\n".utf8), to: "case/A.TXT")
            let collision = try await InProcessCLI.run(["publish", "case/A.TXT", "--as", "A.txt", "--server", server], in: root)
            #expect(collision.errors.contains("(409)") && collision.errors.contains("collides with the live a.txt"), "\(collision.errors)")

            let sha = Fixture.sha256(Data("a\n".utf8))
            let missing = String(repeating: "0", count: 64)
            let auth = ("Authorization", "Bearer \(InProcessCLI.token)")
            try await app.connection { connection in
                let bodies: [(String, Int, String)] = [
                    (#"{"files":[{"path":"x.txt","sha256":"\#(missing)"}]}"#, 422, "lacks the content"),
                    (#"{"files":[{"path":"x.txt","sha256":"\#(sha)"},{"path":"x.txt","sha256":"\#(sha)"}]}"#, 400, "listed twice"),
                    (#"{"files":[{"path":"X.txt","sha256":"\#(sha)"},{"path":"x.TXT","sha256":"\#(sha)"}]}"#, 409, "collides"),
                    (#"{"files":[{"path":"a.txt/b","sha256":"\#(sha)"}]}"#, 409, "needs the folder"),
                    (#"{"files":[{"path":"../x","sha256":"\#(sha)"}]}"#, 400, "not acceptable"),
                    (#"{"files":"#, 400, "not the JSON expected"),
                ]
                for (body, status, message) in bodies {
                    let reply = try await connection.request("POST", "/v1/releases", headers: [auth], body: Array(body.utf8))
                    #expect(reply.status == status && reply.bodyText.contains(message), "\(body): \(reply.status) \(reply.bodyText)")
                }
                let wrongContent = try await connection.request("PUT", "/v1/blobs/\(missing)", headers: [auth], body: Array("not that\n".utf8))
                #expect(wrongContent.status == 400)
                #expect(try await connection.request("HEAD", "/v1/blobs/\(missing)", headers: [auth]).status == 404)
                #expect(try await connection.request("HEAD", "/v1/blobs/\(sha)", headers: [auth]).status == 200)

                // What a publisher asks before uploading: which blobs the server lacks, in the
                // order asked, once each.
                let asked = #"{"sha256": ["\#(missing)", "\#(sha)", "\#(missing)"]}"#
                let lacking = try await connection.request("POST", "/v1/blobs/missing", headers: [auth], body: Array(asked.utf8))
                #expect(lacking.status == 200, "\(lacking.bodyText)")
                #expect(try lacking.decoded(MissingBlobsReply.self).missing == [missing])
                for body in [#"{"sha256": ["\#(sha.uppercased())"]}"#, #"{"sha256": "x"}"#] {
                    #expect(try await connection.request("POST", "/v1/blobs/missing", headers: [auth], body: Array(body.utf8)).status == 400)
                }
                #expect(try await connection.request("POST", "/v1/blobs/missing", body: Array(asked.utf8)).status == 401)
                #expect(try await connection.request("GET", "/channels/stable").bodyText == channelBefore, "the live release is unchanged")
            }
        }
    }

    @Test("a signed channel: verified with the server's public key, refused with another key, the folder left as it was")
    func signedChannel() async throws {
        try await withTemporaryDirectory { keys in
            let made = try await InProcessCLI.run(["keygen", "--out", keys.appendingPathComponent("server.key").path], token: nil, in: keys)
            let other = try await InProcessCLI.run(["keygen", "--out", keys.appendingPathComponent("other.key").path], token: nil, in: keys)
            let publicKey = try #require(made.output.split(separator: " ").dropFirst(2).first.map(String.init))
            let otherKey = try #require(other.output.split(separator: " ").dropFirst(2).first.map(String.init))
            let again = try await InProcessCLI.run(["keygen", "--out", keys.appendingPathComponent("server.key").path], token: nil, in: keys)
            #expect(again.status != 0 && again.errors.contains("cannot create"), "an existing key is never replaced")
            let mode = try FileManager.default.attributesOfItem(atPath: keys.appendingPathComponent("server.key").path)[.posixPermissions] as? Int
            #expect(mode == 0o600)

            try await InProcessCLI.withServer(environment: ["DEPOT_CHANNELS_SIGNING_KEY_FILE": keys.appendingPathComponent("server.key").path]) {
                root,
                server in
                try root.write(Data("signed\n".utf8), to: "a.txt")
                try await InProcessCLI.publish(["a.txt"], to: server, in: root)
                let refused = try await InProcessCLI.run(
                    ["sync", "--server", server, "--dir", "out", "--trusted-key", otherKey],
                    token: nil,
                    in: root
                )
                #expect(refused.status != 0 && refused.errors.contains("not signed by a trusted key"), "\(refused.errors)")
                #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("out/a.txt").path))
                let verified = try await InProcessCLI.run(
                    ["sync", "--server", server, "--dir", "out", "--trusted-key", otherKey, "--trusted-key", publicKey],
                    token: nil,
                    in: root
                )
                #expect(verified.status == 0 && verified.output.contains("signature verified"), "\(verified.output) \(verified.errors)")
                #expect(try String(contentsOf: root.appendingPathComponent("out/a.txt"), encoding: .utf8) == "signed\n")
            }
        }
    }

    @Test(
        "a publish that changes one file of five: the audit trail says 1 file changed of the 5 in the release; release ls shows critical and the app version it needs"
    )
    func auditAndReleaseList() async throws {
        try await InProcessCLI.withServer { root, server in
            for name in ["a", "b", "c", "d", "e"] { try root.write(Data("\(name) one\n".utf8), to: "site/\(name).txt") }
            try await InProcessCLI.publish(["site"], to: server, in: root)
            try root.write(Data("a two\n".utf8), to: "site/a.txt")
            let second = try await InProcessCLI.run(
                ["publish", "site", "--server", server, "--critical", "--minimum-client-version", "3.0"],
                in: root
            )
            #expect(second.status == 0, "\(second.errors)")

            let audit = try await InProcessCLI.run(["audit", "--json", "--server", server], in: root)
            let records = try APIJSON.decode(AuditList.self, from: Data(audit.output.utf8)).records
            #expect(records.first?.detail == "1 file changed, 0 removed, 5 in the release", "\(records)")

            let listed = try await InProcessCLI.run(["release", "ls", "--server", server], in: root)
            let lines = listed.output.split(separator: "\n")
            let two = try #require(lines.first { $0.hasPrefix("2\t") }, "\(listed.output)")
            let one = try #require(lines.first { $0.hasPrefix("1\t") }, "\(listed.output)")
            #expect(two.contains("\t5 files\t") && two.contains("\tcritical, needs app 3.0\t← stable"), "\(two)")
            #expect(!one.contains("critical") && !one.contains("needs app"), "\(one)")
        }
    }
}
