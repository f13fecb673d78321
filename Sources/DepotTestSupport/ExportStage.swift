import DepotClient
import DepotTestFixtures
import Foundation
import Testing

/// The folder of a deploy test around a static edge: a signing key, the `depot serve` process on
/// `data/` (``serving(_:_:)``) and the `depot export` process (``export(to:_:)``), and the
/// commands run in process (``InProcessCLI``): `depot publish`, and clients that `depot sync`
/// (``sync(_:from:)``) and are compared with the trees published (``holdsTree(_:_:)``). Every
/// suite of the static edge (export, mirrors, failover, reports, production modes) runs on it;
/// nginx in front of a folder is ``Nginx/serving(export:workers:_:)``.
public struct ExportStage: Sendable {
    /// The folder everything lives in: `public/`, `data/`, `channel.key`, the trees, the clients.
    public let root: URL
    /// The public half of `channel.key`, which clients trust.
    public let publicKey: String

    /// A stage in `root` whose clients trust `publicKey`.
    public init(root: URL, publicKey: String) {
        self.root = root
        self.publicKey = publicKey
    }

    /// A new temporary stage with an empty `public/` and a new `channel.key`, for `body`.
    public static func with(_ body: (ExportStage) async throws -> Void) async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            let keygen = try await InProcessCLI.run(["keygen", "--out", root.appendingPathComponent("channel.key").path], in: root)
            let publicKey = try #require(keygen.output.split(separator: " ").dropFirst(2).first.map(String.init))
            try await body(ExportStage(root: root, publicKey: publicKey))
        }
    }

    /// The path of `name` below the stage.
    public func path(_ name: String) -> String { root.appendingPathComponent(name).path }

    /// The server's settings: its signing key, and `extra`.
    public func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ["DEPOT_PUBLISH_TOKENS": InProcessCLI.token, "DEPOT_CHANNELS_SIGNING_KEY_FILES": path("channel.key")].merging(extra) { $1 }
    }

    /// Runs `depot serve` on the stage's data folder for the length of `body`.
    public func serving(_ extra: [String: String] = [:], _ body: (String) async throws -> Void) async throws {
        try await DepotProcess.with(["serve", "--port", "0", "--public", "public", "--data", "data"], environment: environment(extra), in: root) {
            server in
            let port = try await server.waitForPort()
            try await body("http://127.0.0.1:\(port)")
            #expect(try await server.stop() == 0)
        }
    }

    /// `depot export --to FOLDER`, with the server's settings: its exit status and output.
    public func export(to folder: String, _ extra: [String: String] = [:]) async throws -> (status: Int32, log: String) {
        try await DepotProcess.run(["export", "--data", "data", "--to", folder], environment: environment(extra), in: root)
    }

    /// Publishes the folder `tree` to `server`, as one release.
    public func publish(_ tree: String, to server: String) async throws {
        try await InProcessCLI.publish([tree, "--no-index"], to: server, in: root)
    }

    /// `depot sync` of `folder` from `server`, trusting the stage's key: the report.
    public func sync(_ folder: String, from server: String) async throws -> SyncReport {
        let result = try await InProcessCLI.run(
            ["sync", "--server", server, "--dir", folder, "--trusted-key", publicKey, "--json"],
            token: nil,
            in: root
        )
        #expect(result.status == 0, "\(server): \(result.errors) \(result.output)")
        return try JSONDecoder().decode(SyncReport.self, from: Data(result.output.utf8))
    }

    /// Writes a tree of `count` small files, a compressible text of 200 KB and a 2 MB
    /// database into `tree`, the database's 10 bytes at 1 MB set to `edit`;
    /// `variant` picks other bytes for the small files.
    public func writeTree(_ tree: String, count: Int = 40, variant: Int = 0, edit: UInt8) throws {
        for index in 0..<count {
            try root.write(Fixture.pseudoRandom(count: 2000, seed: UInt64(variant * 100_000 + index * 2 + 1)), to: "\(tree)/assets/\(index).bin")
        }
        // Text (hex) that gzip halves: larger than a pack member even compressed.
        let notes = Fixture.pseudoRandom(count: 100_000, seed: 77).map { String(format: "%02x", $0) }.joined() + "edition \(edit)\n"
        try root.write(Data(notes.utf8), to: "\(tree)/notes.txt")
        var database = Fixture.pseudoRandom(count: 2 << 20, seed: 99)
        database.replaceSubrange((1 << 20)..<((1 << 20) + 10), with: [UInt8](repeating: edit, count: 10))
        try root.write(database, to: "\(tree)/catalog.db")
    }

    /// Puts in the export folder `export`, in place of the blob of `file` (which is a link to
    /// the store's), a new file with one byte changed: a tampering mirror.
    public func tamper(_ export: String, blobOf file: String) throws {
        let sha256 = Fixture.sha256(try Data(contentsOf: root.appendingPathComponent(file)))
        let blob = root.appendingPathComponent("\(export)/blobs/\(sha256)")
        var bytes = try Data(contentsOf: blob)
        bytes[100] ^= 0xFF
        try FileManager.default.removeItem(at: blob)
        try bytes.write(to: blob)
    }

    /// Whether the client folder `folder` holds every file of `tree`, byte for byte.
    public func holdsTree(_ folder: String, _ tree: String) throws -> Bool {
        let files = try #require(FileManager.default.enumerator(atPath: path(tree))).compactMap { $0 as? String }
        for file in files
        where (try? FileManager.default.attributesOfItem(atPath: path("\(tree)/\(file)"))[.type] as? FileAttributeType) == .typeRegular {
            guard FileManager.default.contents(atPath: path("\(folder)/\(file)")) == FileManager.default.contents(atPath: path("\(tree)/\(file)"))
            else {
                return false
            }
        }
        return true
    }
}
