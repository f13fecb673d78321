import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// `depot mirror`: a static mirror of the origin, or of another mirror behind the shipped
/// `deploy/nginx/static-mirror.conf`, the same files as the origin's export; killed, it goes
/// on; a tampered source or an untrusted key is refused; roots of trust are walked through it;
/// and when the origin's disk is lost, the mirror carries its clients to the rebuilt origin's
/// next release (``drill(_:)``).
@Suite("Static mirrors")
struct StaticMirrorTests {
    typealias Stage = ExportStage

    /// The files of an export folder and their bytes, work folders left out.
    static func tree(_ folder: URL) throws -> [String: Data] {
        let names = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
        var files: [String: Data] = [:]
        for name in names where !name.hasPrefix(".") {
            let path = folder.appendingPathComponent(name).path
            guard (try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular else { continue }
            files[name] = FileManager.default.contents(atPath: path)
        }
        return files
    }

    @Test(
        "depot mirror from the origin, then from that folder behind nginx: identical trees, as the export's; killed, it goes on; a tampered source is refused"
    )
    func mirrorChain() async throws {
        try await Stage.with { stage in
            try stage.writeTree("v1", edit: 1)
            try stage.writeTree("v2", edit: 2)
            try await stage.serving { origin in
                try await stage.publish("v1", to: origin)
                try await stage.publish("v2", to: origin)
                @Sendable func mirror(from source: String, to folder: String) async throws -> (status: Int32, output: String, errors: String) {
                    try await InProcessCLI.run(
                        ["mirror", "--from", source, "--to", folder, "--trusted-key", stage.publicKey],
                        token: nil,
                        in: stage.root
                    )
                }
                let first = try await mirror(from: origin, to: "first")
                #expect(first.status == 0, "\(first.errors)")
                #expect(first.output.contains("Mirrored stable: release 2"))
                #expect(try await stage.export(to: "export").status == 0)
                let firstTree = try Self.tree(stage.root.appendingPathComponent("first"))
                #expect(firstTree == (try Self.tree(stage.root.appendingPathComponent("export"))), "a mirror of the origin is its export")
                #expect(firstTree.keys.contains { $0.hasPrefix("deltas/") } && firstTree.keys.contains { $0.hasPrefix("packs/") })

                try await Nginx.serving(export: stage.root.appendingPathComponent("first")) { nginx in
                    let second = try await mirror(from: nginx.url(""), to: "second")
                    #expect(second.status == 0, "\(second.errors)")
                    #expect(try Self.tree(stage.root.appendingPathComponent("second")) == firstTree)
                    let again = try await mirror(from: nginx.url(""), to: "second")
                    #expect(again.output.contains("0 file(s) written"), "\(again.output)")

                    // Killed once its first files are in place (from a source slowed down, so
                    // that the kill falls half-way), then run again.
                    try await FaultyRelay.with(upstreamPort: nginx.port) { relay in
                        relay.slowDownBlobResponses(by: .milliseconds(5))
                        try await DepotProcess.with(
                            ["mirror", "--from", "http://127.0.0.1:\(relay.port)", "--to", "third", "--trusted-key", stage.publicKey],
                            in: stage.root
                        ) { killed in
                            let blobs = stage.root.appendingPathComponent("third/blobs").path
                            while killed.isRunning, ((try? FileManager.default.contentsOfDirectory(atPath: blobs).count) ?? 0) < 5 {
                                try await Task.sleep(for: .milliseconds(2))
                            }
                            #expect(killed.isRunning, "killed half-way")
                            killed.kill()
                            _ = try await killed.waitForExit()
                        }
                    }
                    #expect(!FileManager.default.fileExists(atPath: stage.root.appendingPathComponent("third/channels/stable").path))
                    #expect(try await mirror(from: nginx.url(""), to: "third").status == 0)
                    #expect(try Self.tree(stage.root.appendingPathComponent("third")) == firstTree)
                }

                // One file of the source changed: the mirror refuses it, and shows nothing.
                try stage.tamper("first", blobOf: "v2/catalog.db")
                try await Nginx.serving(export: stage.root.appendingPathComponent("first")) { nginx in
                    let refused = try await mirror(from: nginx.url(""), to: "fourth")
                    #expect(refused.status == 1)
                    #expect(refused.errors.contains("does not have the SHA-256"), "\(refused.errors)")
                    #expect(!FileManager.default.fileExists(atPath: stage.root.appendingPathComponent("fourth/channels/stable").path))
                    let unsigned = try await InProcessCLI.run(
                        ["mirror", "--from", nginx.url(""), "--to", "fifth", "--trusted-key", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="],
                        token: nil,
                        in: stage.root
                    )
                    #expect(unsigned.status == 1)
                    #expect(unsigned.errors.contains("refused"), "\(unsigned.errors)")
                }
            }
        }
    }

    @Test("under a root of trust rotated once: depot mirror and a client walk the roots of the export, and of a mirror of it")
    func rootsThroughMirrors() async throws {
        try await Stage.with { stage in
            @Sendable func depot(_ arguments: [String]) async throws -> String {
                let result = try await InProcessCLI.run(arguments, token: nil, in: stage.root)
                #expect(result.status == 0, "depot \(arguments.joined(separator: " ")): \(result.errors)")
                return result.output
            }
            let rootKey = try #require(try await depot(["keygen", "--out", stage.path("root.key")]).split(separator: " ").dropFirst(2).first)
            try FileManager.default.createDirectory(at: stage.root.appendingPathComponent("roots"), withIntermediateDirectories: true)
            _ = try await depot([
                "root", "init", "--out", stage.path("roots/1.root.json"), "--root-key", String(rootKey), "--channel-key", stage.publicKey,
            ])
            _ = try await depot(["root", "sign", stage.path("roots/1.root.json"), "--key", stage.path("root.key")])
            _ = try await depot([
                "root", "rotate", "--from", stage.path("roots/1.root.json"), "--out", stage.path("roots/2.root.json"), "--expires-days", "30",
            ])
            _ = try await depot(["root", "sign", stage.path("roots/2.root.json"), "--key", stage.path("root.key")])
            let roots = ["DEPOT_CHANNELS_ROOT_DIRECTORY": stage.path("roots")]
            try stage.writeTree("v1", edit: 1)
            try await stage.serving(roots) { origin in
                try await stage.publish("v1", to: origin)
            }
            #expect(try await stage.export(to: "export", roots).status == 0)
            #expect(FileManager.default.fileExists(atPath: stage.path("export/roots/2.json")))
            try await Nginx.serving(export: stage.root.appendingPathComponent("export")) { exported in
                let mirrored = try await depot([
                    "mirror", "--from", exported.url(""), "--to", "mirror", "--trusted-root", stage.path("roots/1.root.json"),
                ])
                #expect(mirrored.contains("Mirrored stable: release 1"))
                #expect(try Self.tree(stage.root.appendingPathComponent("mirror")) == (try Self.tree(stage.root.appendingPathComponent("export"))))
            }
            try await Nginx.serving(export: stage.root.appendingPathComponent("mirror")) { mirror in
                let synced = try await depot([
                    "sync", "--server", mirror.url(""), "--dir", "client", "--trusted-root", stage.path("roots/1.root.json"),
                ])
                #expect(synced.contains("signature verified under root 2"), "\(synced)")
                #expect(try stage.holdsTree("client", "v1"))
            }
        }
    }
}

/// The origin's disk lost while a fleet follows it through a static mirror (`depot mirror`
/// behind the shipped nginx configuration): the origin rebuilt with `depot import` from that
/// mirror, or restored from `depot backup`, publishes release N+1, and every client reaches it
/// through the mirror, with no step of its own and none refusing it.
extension StaticMirrorTests {
    static let clients = 20

    /// How the origin comes back.
    enum Recovery: String, CaseIterable, Sendable {
        case importFromMirror = "depot import from the mirror's URL"
        case restoreFromBackup = "depot restore from a backup taken before the last release"
    }

    @Test("the origin's data folder deleted, then rebuilt: release N+1 reaches 20 clients of the mirror", arguments: Recovery.allCases)
    func drill(_ recovery: Recovery) async throws {
        try await Stage.with { stage in
            for version in 1...3 { try stage.writeTree("v\(version)", count: 10, variant: version, edit: UInt8(version)) }
            @Sendable func mirror(from origin: String) async throws {
                let mirrored = try await InProcessCLI.run(
                    ["mirror", "--from", origin, "--to", "mirror", "--trusted-key", stage.publicKey],
                    token: nil,
                    in: stage.root
                )
                #expect(mirrored.status == 0, "\(mirrored.errors)")
            }
            try await stage.serving { origin in
                try await stage.publish("v1", to: origin)
                if recovery == .restoreFromBackup {
                    let backup = try await InProcessCLI.run(["backup", "--to", "backup", "--data", "data"], token: nil, in: stage.root)
                    #expect(backup.status == 0, "\(backup.errors)")
                }
                try await stage.publish("v2", to: origin)
                try await mirror(from: origin)
                // A move the mirror never sees, taken by a client of the origin itself: its
                // serial is above the mirror's, and the rebuilt origin must sign above it.
                let rollback = try await InProcessCLI.run(["release", "rollback", "--server", origin], in: stage.root)
                #expect(rollback.status == 0, "\(rollback.errors)")
                #expect(try await stage.sync("direct", from: origin).release?.number == 1)
            }
            try await Nginx.serving(export: stage.root.appendingPathComponent("mirror")) { nginx in
                var held: Set<String> = []
                for client in 0..<Self.clients {
                    let report = try await stage.sync("client-\(client)", from: nginx.url(""))
                    #expect(report.release?.number == 2)
                    held.insert(report.release?.id ?? "")
                }

                // The disk is lost; the origin comes back from the mirror, or from the backup.
                try FileManager.default.removeItem(at: stage.root.appendingPathComponent("data"))
                let rebuilt =
                    switch recovery {
                    case .importFromMirror:
                        try await InProcessCLI.run(
                            ["import", "--from", nginx.url(""), "--data", "data", "--trusted-key", stage.publicKey, "--channel", "stable"],
                            token: nil,
                            in: stage.root
                        )
                    case .restoreFromBackup:
                        try await InProcessCLI.run(["restore", "--from", "backup", "--data", "data"], token: nil, in: stage.root)
                    }
                #expect(rebuilt.status == 0 && rebuilt.output.contains("serials raised by 1000"), "\(rebuilt.output) \(rebuilt.errors)")

                try await stage.serving { origin in
                    try await stage.publish("v3", to: origin)
                    try await mirror(from: origin)
                    #expect(try stage.holdsTree("direct", "v1"))
                    _ = try await stage.sync("direct", from: origin)
                    #expect(try stage.holdsTree("direct", "v3"), "the client of the origin takes N+1: no replay")
                }
                for client in 0..<Self.clients {
                    let report = try await stage.sync("client-\(client)", from: nginx.url(""))
                    // N+1, numbered past the copy's newest by the release margin (100), so that no
                    // number a lost release had is given again: 103 rebuilt from the mirror (which
                    // held release 2), 102 restored from a backup that held release 1 only.
                    #expect(report.release?.number == (recovery == .importFromMirror ? 103 : 102))
                    #expect(report.updatedCount > 0 && !held.contains(report.release?.id ?? ""))
                    #expect(try stage.holdsTree("client-\(client)", "v3"), "client \(client) holds release N+1")
                }
            }
        }
    }
}
