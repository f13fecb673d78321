import Crypto
import DepotManifest
import DepotSigning
import DepotTestSupport
import Foundation
import Testing

/// The root of trust's life with the `depot` commands and the server, in process: `depot root`
/// where the root keys are, the server configured as `depot serve` is with channel keys and the
/// signed roots only, `depot sync` with root 1 as the app ships it, and a mirror (a folder the
/// server serves as it is) that forges, replays and pins.
@Suite("Root of trust")
struct RootOfTrustTests {

    /// A folder of keys, roots, a server's data and the client's folder, with a server that can be
    /// restarted on the same data.
    final class Stage: @unchecked Sendable {
        let root: URL
        /// The server running now (``serving(keys:_:)``), and its URL.
        var server: InProcessServer?
        var url = ""

        init(root: URL) throws {
            self.root = root
            for folder in ["keys", "roots", "public/mirror/channels", "public/mirror/roots"] {
                try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
        }

        func path(_ name: String) -> String { root.appendingPathComponent(name).path }

        /// `depot ARGUMENTS`, which must succeed; its output.
        @discardableResult
        func depot(_ arguments: [String]) async throws -> String {
            let result = try await InProcessCLI.run(arguments, in: root)
            #expect(result.status == 0, "depot \(arguments.joined(separator: " ")): \(result.errors)")
            return result.output
        }

        /// Makes a key; returns its public key (base64).
        func keygen(_ name: String) async throws -> String {
            let output = try await depot(["keygen", "--out", path("keys/\(name).key")])
            return try #require(output.split(separator: " ").dropFirst(2).first.map(String.init))
        }

        func privateKey(_ name: String) throws -> Curve25519.Signing.PrivateKey {
            let text = try String(contentsOfFile: path("keys/\(name).key"), encoding: .utf8)
            return try Curve25519.Signing.PrivateKey(rawRepresentation: Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines))!)
        }

        /// Runs the server, configured as `depot serve` is, signing with `keys` under the roots of
        /// `roots/` for the length of `body`, then stops it; why it refused to start (and `body`
        /// did not run), else nil.
        func serving(keys: [String], _ body: () async throws -> Void = {}) async throws -> String? {
            let environment = [
                "DEPOT_CHANNELS_SIGNING_KEY_FILES": keys.map { path("keys/\($0).key") }.joined(separator: ","),
                "DEPOT_CHANNELS_ROOT_DIRECTORY": path("roots"),
            ]
            var started = false
            do {
                try await InProcessCLI.serve(in: root, environment: environment) { url, server in
                    started = true
                    (self.url, self.server) = (url, server)
                    defer { (self.url, self.server) = ("", nil) }
                    try await body()
                }
            } catch  where !started {
                // Refused: it threw before `body` ran.
                return "\(error)"
            }
            return nil
        }

        /// Publishes `text` as `a.txt`.
        func publish(_ text: String) async throws {
            try root.write(Data(text.utf8), to: "a.txt")
            try await depot(["publish", "a.txt", "--server", url])
        }

        /// `depot sync` of `out/` from `server` (the origin, or `/mirror` below it), trusting root 1.
        func sync(from server: String? = nil) async throws -> (status: Int32, output: String, errors: String) {
            try await InProcessCLI.run(
                // No minimum rate: the server runs in the test process, which a loaded machine can
                // starve for longer than a rate window; the rate is not the subject here.
                ["sync", "--server", server ?? url, "--dir", "out", "--trusted-root", path("app-root.json"), "--minimum-rate", "0"],
                token: nil,
                in: root
            )
        }

        /// What the origin serves at `/channels/stable`.
        func channelDocument() async throws -> ChannelDocument {
            let origin = try #require(server)
            let body = try await origin.connection { try await $0.request("GET", "/channels/stable").body }
            return try JSONDecoder().decode(ChannelDocument.self, from: Data(body))
        }

        /// Puts `document`, signed by `keys`, on the mirror, and waits until the server serves it
        /// (it rescans its public folder every 2 s).
        func mirror(_ document: ChannelDocument, signedBy keys: [String]) async throws {
            var document = document
            document.signatures = try keys.map { try Ed25519.sign(document.signedText, with: try privateKey($0)) }
            let bytes = try JSONEncoder().encode(document)
            try root.write(bytes, to: "public/mirror/channels/stable")
            try await served(bytes, at: "/mirror/channels/stable")
        }

        /// Waits until the server serves `bytes` at `path` (it rescans its public folder every
        /// 2 s; the bound only guards a hang: the server shares the test process with a loaded run).
        func served(_ bytes: Data, at path: String) async throws {
            let server = try #require(server)
            let served = try await poll(for: .seconds(300)) {
                Data(try await server.connection { try await $0.request("GET", path).body }) == bytes ? true : nil
            }
            if served == nil { Issue.record("the server does not serve \(path) as written") }
        }
    }

    static func withStage(_ body: (Stage) async throws -> Void) async throws {
        try await withTemporaryDirectory { root in
            try await body(try Stage(root: root))
        }
    }

    @Test("rotating a channel key, and revoking a leaked one that pinned clients with a high serial; an old root replayed")
    func rotationAndRevocation() async throws {
        try await Self.withStage { stage in
            let rootKeys = [try await stage.keygen("r1"), try await stage.keygen("r2"), try await stage.keygen("r3")]
            let leaked = try await stage.keygen("c1")
            try await stage.depot(
                ["root", "init", "--out", stage.path("roots/1.root.json"), "--root-threshold", "2", "--channel-key", leaked]
                    + rootKeys.flatMap { ["--root-key", $0] }
            )
            for key in ["r1", "r2"] {
                try await stage.depot(["root", "sign", stage.path("roots/1.root.json"), "--key", stage.path("keys/\(key).key")])
            }
            try FileManager.default.copyItem(atPath: stage.path("roots/1.root.json"), toPath: stage.path("app-root.json"))

            let served = try await stage.serving(keys: ["c1"]) {
                try await stage.publish("one\n")
                let first = try await stage.sync()
                #expect(first.status == 0 && first.output.contains("signature verified under root 1"), "\(first.output) \(first.errors)")

                // c1 leaks. Its holder feeds the client the same release with serial 25 through a mirror.
                var forged = try await stage.channelDocument()
                forged.serial = 25
                try await stage.mirror(forged, signedBy: ["c1"])
                #expect(try await stage.sync(from: stage.url + "/mirror").status == 0, "a document the trusted key signed is accepted")
                // The real server's next release, serial 2, is now refused as a replay: the client is pinned.
                try await stage.publish("two\n")
                let pinned = try await stage.sync()
                #expect(pinned.status != 0 && pinned.errors.contains("lower than the 25 accepted before"), "\(pinned.errors)")
            }
            #expect(served == nil)

            // Recovery where the root keys are: root 2 drops c1 for c2; the server gets c2 and root 2.
            let replacement = try await stage.keygen("c2")
            let leakedID = try #require(Ed25519.keyID(base64: leaked))
            try await stage.depot([
                "root", "rotate", "--from", stage.path("roots/1.root.json"), "--out", stage.path("roots/2.root.json"),
                "--add-channel-key", replacement, "--remove-channel-key", leakedID,
            ])
            let unsigned = try await InProcessCLI.run(
                ["root", "verify", stage.path("roots/1.root.json"), stage.path("roots/2.root.json")],
                in: stage.root
            )
            #expect(unsigned.status != 0 && unsigned.errors.contains("signed by 0 of root 1's root keys; it needs 2"), "\(unsigned.errors)")
            for key in ["r1", "r3"] {
                try await stage.depot(["root", "sign", stage.path("roots/2.root.json"), "--key", stage.path("keys/\(key).key")])
            }
            try await stage.depot(["root", "verify", stage.path("roots/1.root.json"), stage.path("roots/2.root.json")])
            let refusedStart = try await stage.serving(keys: ["c1"])
            #expect(refusedStart?.contains("channels.signingKeyFile(s) hold 0 of them") == true, "\(refusedStart ?? "started")")
            let restarted = try await stage.serving(keys: ["c2"]) {
                let recovered = try await stage.sync()
                #expect(
                    recovered.status == 0 && recovered.output.contains("signature verified under root 2"),
                    "\(recovered.output) \(recovered.errors)"
                )
                #expect(try String(contentsOfFile: stage.path("out/a.txt"), encoding: .utf8) == "two\n")

                // The leaked key again: under root 1 it is a replay, under root 2 it is no channel key.
                var replay = try await stage.channelDocument()
                replay.serial = 30
                replay.root = 1
                try await stage.mirror(replay, signedBy: ["c1"])
                let oldRoot = try await stage.sync(from: stage.url + "/mirror")
                #expect(oldRoot.status != 0 && oldRoot.errors.contains("older than the root 2"), "\(oldRoot.errors)")
                replay.root = 2
                try await stage.mirror(replay, signedBy: ["c1"])
                let notAKey = try await stage.sync(from: stage.url + "/mirror")
                #expect(notAKey.status != 0 && notAKey.errors.contains("signed by 0 of root 2's channel keys"), "\(notAKey.errors)")

                // An old root replayed as a newer one.
                try FileManager.default.copyItem(atPath: stage.path("roots/2.root.json"), toPath: stage.path("public/mirror/roots/3.json"))
                try await stage.served(try Data(contentsOf: URL(fileURLWithPath: stage.path("roots/2.root.json"))), at: "/mirror/roots/3.json")
                replay.root = 3
                try await stage.mirror(replay, signedBy: ["c2"])
                let replayedRoot = try await stage.sync(from: stage.url + "/mirror")
                #expect(
                    replayedRoot.status != 0 && replayedRoot.errors.contains("the root served as version 3 says it is version 2"),
                    "\(replayedRoot.errors)"
                )
                #expect(try String(contentsOfFile: stage.path("out/a.txt"), encoding: .utf8) == "two\n")

                // An origin rebuilt from this one gets its roots, as channels.rootDirectory holds them.
                let imported = try await InProcessCLI.run(
                    [
                        "import", "--from", stage.url, "--data", "rebuilt", "--trusted-root", stage.path("app-root.json"), "--channel", "stable",
                        "--minimum-rate", "0",
                    ],
                    token: nil,
                    in: stage.root
                )
                #expect(imported.status == 0 && imported.output.contains("2 root(s) in rebuilt/roots"), "\(imported.output) \(imported.errors)")
                for version in 1...2 {
                    #expect(
                        FileManager.default.contents(atPath: stage.path("rebuilt/roots/\(version).root.json"))
                            == FileManager.default.contents(atPath: stage.path("roots/\(version).root.json"))
                    )
                }
            }
            #expect(restarted == nil)
        }
    }

    @Test("a 2-of-3 channel threshold: the server needs two keys, one signature is refused, two are accepted")
    func threshold() async throws {
        try await Self.withStage { stage in
            let rootKey = try await stage.keygen("r1")
            let channelKeys = [try await stage.keygen("c1"), try await stage.keygen("c2"), try await stage.keygen("c3")]
            try await stage.depot(
                ["root", "init", "--out", stage.path("roots/1.root.json"), "--root-key", rootKey, "--channel-threshold", "2"]
                    + channelKeys.flatMap { ["--channel-key", $0] }
            )
            try await stage.depot(["root", "sign", stage.path("roots/1.root.json"), "--key", stage.path("keys/r1.key")])
            try FileManager.default.copyItem(atPath: stage.path("roots/1.root.json"), toPath: stage.path("app-root.json"))

            let refused = try await stage.serving(keys: ["c1"])
            #expect(refused?.contains("signed by 2 of its channel keys") == true, "\(refused ?? "started")")
            let served = try await stage.serving(keys: ["c1", "c3"]) {
                try await stage.publish("one\n")
                let synced = try await stage.sync()
                #expect(synced.status == 0 && synced.output.contains("signature verified under root 1"), "\(synced.output) \(synced.errors)")

                var next = try await stage.channelDocument()
                next.serial += 1
                try await stage.mirror(next, signedBy: ["c2"])
                let one = try await stage.sync(from: stage.url + "/mirror")
                #expect(one.status != 0 && one.errors.contains("signed by 1 of root 1's channel keys; it needs 2"), "\(one.errors)")
                try await stage.mirror(next, signedBy: ["c2", "c2", "c3"])
                #expect(try await stage.sync(from: stage.url + "/mirror").status == 0, "two distinct keys sign it")
            }
            #expect(served == nil)
        }
    }

    @Test("a rotation that removes a key the root does not name (its base64 for its id, a typo) is refused, and writes no root")
    func removalOfUnknownKey() async throws {
        try await Self.withStage { stage in
            let rootKey = try await stage.keygen("r1")
            let channelKey = try await stage.keygen("c1")
            try await stage.depot(["root", "init", "--out", stage.path("roots/1.root.json"), "--root-key", rootKey, "--channel-key", channelKey])
            for (removal, hint) in [(channelKey, "that is a key; its id is"), ("0123456789abcdef", "")] {
                let result = try await InProcessCLI.run(
                    [
                        "root", "rotate", "--from", stage.path("roots/1.root.json"), "--out", stage.path("roots/2.root.json"), "--remove-channel-key",
                        removal,
                    ],
                    in: stage.root
                )
                #expect(result.status == 1)
                #expect(result.errors.contains("names no channel key of root 1"), "\(result.errors)")
                #expect(hint.isEmpty || result.errors.contains(hint), "\(result.errors)")
                #expect(!FileManager.default.fileExists(atPath: stage.path("roots/2.root.json")))
            }
        }
    }
}
