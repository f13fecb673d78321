import DepotTestSupport
import Foundation
import Testing

/// The origin's disk lost: clients that follow it, a `depot backup` taken while it served, a
/// data folder restored from it, and the next release reaching every client, none refusing it.
@Suite("Disaster drill: backup and restore")
struct DisasterDrillTests {
    static let clients = 5

    /// A new folder with a `public/` folder and a channel key (`channel.key`), for `body`, with
    /// the key's public half.
    static func withKey(_ body: (URL, URL, String) async throws -> Void) async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            let key = root.appendingPathComponent("channel.key")
            let made = try await InProcessCLI.run(["keygen", "--out", key.path], token: nil, in: root)
            let publicKey = try #require(made.output.split(separator: " ").dropFirst(2).first.map(String.init))
            try await body(root, key, publicKey)
        }
    }

    /// Runs a server on `data` for `body`, signing with `key` (and with `extra` settings), in
    /// process, then stops it.
    static func serving(
        _ data: String,
        key: URL,
        in root: URL,
        extra: [String: String] = [:],
        _ body: (String) async throws -> Void
    ) async throws {
        try await serving(data, key: key, in: root, extra: extra) { server, _ in try await body(server) }
    }

    /// ``serving(_:key:in:extra:_:)``, with the server itself for `body`, for the requests a
    /// test sends it.
    static func serving(
        _ data: String,
        key: URL,
        in root: URL,
        extra: [String: String] = [:],
        _ body: (String, InProcessServer) async throws -> Void
    ) async throws {
        let environment = ["DEPOT_CHANNELS_SIGNING_KEY_FILE": key.path].merging(extra) { $1 }
        try await InProcessCLI.serve(in: root, data: data, environment: environment, body)
    }

    static func publish(_ version: Int, server: String, in root: URL) async throws {
        try root.write(Data("version \(version)\n".utf8), to: "site/a.txt")
        try root.write(Data("added in \(version)\n".utf8), to: "site/new-\(version).txt")
        try await InProcessCLI.publish(["site"], to: server, in: root)
    }

    /// Each client syncs; the lines they printed.
    static func syncAll(server: String, publicKey: String, in root: URL, count: Int = clients) async throws -> [(status: Int32, text: String)] {
        var results: [(Int32, String)] = []
        for client in 0..<count {
            let synced = try await InProcessCLI.run(
                ["sync", "--server", server, "--dir", "client-\(client)", "--trusted-key", publicKey],
                token: nil,
                in: root
            )
            results.append((synced.status, synced.output + synced.errors))
        }
        return results
    }

    @Test("backup while serving, a release after it, the data folder lost; restore, publish N+1: every client takes it, none calls it a replay")
    func fromBackup() async throws {
        try await Self.withKey { root, key, publicKey in

            try await Self.serving("data", key: key, in: root) { server in
                for version in 1...2 { try await Self.publish(version, server: server, in: root) }
                let backup = try await InProcessCLI.run(["backup", "--to", "backup", "--data", "data"], token: nil, in: root)
                #expect(backup.status == 0 && backup.output.hasPrefix("Backed up to backup: "), "\(backup.output) \(backup.errors)")
                // Run again: incremental, nothing new to link.
                let again = try await InProcessCLI.run(["backup", "--to", "backup", "--data", "data", "--json"], token: nil, in: root)
                #expect(again.output.contains(#""linked":0,"copied":0"#), "\(again.output)")
                // A release after the backup: the clients see a serial the backup does not hold.
                try await Self.publish(3, server: server, in: root)
                for result in try await Self.syncAll(server: server, publicKey: publicKey, in: root) {
                    #expect(result.status == 0 && result.text.contains("release 3 of stable"), "\(result.text)")
                }
            }
            // The disk is lost.
            try FileManager.default.removeItem(at: root.appendingPathComponent("data"))

            // A damaged backup is refused whole, and makes nothing.
            try FileManager.default.copyItem(at: root.appendingPathComponent("backup"), to: root.appendingPathComponent("damaged"))
            let blobs = root.appendingPathComponent("damaged/blobs")
            let shard = try #require(try FileManager.default.contentsOfDirectory(atPath: blobs.path).sorted().first)
            let blob = try #require(
                try FileManager.default.contentsOfDirectory(atPath: blobs.appendingPathComponent(shard).path).first { !$0.hasSuffix(".gz") }
            )
            try Data("tampered".utf8).write(to: blobs.appendingPathComponent(shard).appendingPathComponent(blob))
            let refused = try await InProcessCLI.run(["restore", "--from", "damaged", "--data", "bad-data"], token: nil, in: root)
            #expect(refused.status == 1 && refused.errors.contains("does not have the SHA-256 it is named by"), "\(refused.errors)")
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("bad-data").path))

            let restored = try await InProcessCLI.run(["restore", "--from", "backup", "--data", "data"], token: nil, in: root)
            #expect(restored.status == 0 && restored.output.contains("serials raised by 1000"), "\(restored.output) \(restored.errors)")
            // It says who goes back (the clients on release 3, which the backup missed), and
            // numbers the next release past it.
            #expect(
                restored.output.contains("Clients holding a release newer than release 2 (the newest the backup holds, made ")
                    && restored.output.contains("go back at their next poll: stable to release 2."),
                "\(restored.output)"
            )
            #expect(restored.output.contains("The next release is numbered 103, past any release the backup may have missed."), "\(restored.output)")
            let refill = try await InProcessCLI.run(["restore", "--from", "backup", "--data", "data"], token: nil, in: root)
            #expect(refill.status == 1 && refill.errors.contains("is not empty"), "\(refill.errors)")

            try await Self.serving("data", key: key, in: root) { server in
                try await Self.publish(4, server: server, in: root)
                for result in try await Self.syncAll(server: server, publicKey: publicKey, in: root) {
                    #expect(result.status == 0 && result.text.contains("release 103 of stable"), "\(result.text)")
                }
                // The restore is in the audit trail.
                let audit = try await InProcessCLI.run(["audit", "--server", server, "--json"], in: root)
                #expect(audit.status == 0 && audit.output.contains(#""action":"restore""#), "\(audit.output) \(audit.errors)")
            }
            for client in 0..<Self.clients {
                let folder = root.appendingPathComponent("client-\(client)")
                #expect(try String(contentsOf: folder.appendingPathComponent("a.txt"), encoding: .utf8) == "version 4\n")
                #expect(try String(contentsOf: folder.appendingPathComponent("new-4.txt"), encoding: .utf8) == "added in 4\n")
            }

            // Without the margin, the restored origin's next document is older than what the
            // clients accepted: they refuse it, as they must.
            let unsafe = try await InProcessCLI.run(
                ["restore", "--from", "backup", "--data", "data-no-margin", "--serial-margin", "0"],
                token: nil,
                in: root
            )
            #expect(unsafe.status == 0, "\(unsafe.errors)")
            try await Self.serving("data-no-margin", key: key, in: root) { server in
                try await Self.publish(5, server: server, in: root)
                let result = try #require(try await Self.syncAll(server: server, publicKey: publicKey, in: root, count: 1).first)
                #expect(result.status != 0 && result.text.contains("lower than"), "\(result.text)")
            }
        }
    }
}
