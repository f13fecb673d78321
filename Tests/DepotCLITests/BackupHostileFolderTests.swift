import DepotTestFixtures
import DepotTestSupport
import Foundation
import Testing

/// `depot backup` and `depot restore` against folders someone else can write (issue 57,
/// defects 4, 5 and 8): a link planted in a backup target or in a backup is refused with one
/// line, nothing outside the folders is touched, and a backup that lacks a file its catalog
/// names (a gzip variant) is refused.
@Suite("Backup and restore: planted links, missing variants")
struct BackupHostileFolderTests {
    /// A data folder `data` in `root` with one release of a compressible file (so a gzip
    /// variant), and a backup of it in `backup`, for `body`.
    static func withBackup(_ body: (URL) async throws -> Void) async throws {
        try await DisasterDrillTests.withKey { root, key, _ in
            try await DisasterDrillTests.serving("data", key: key, in: root) { server in
                _ = try root.write(Data(String(repeating: "a line that compresses well\n", count: 400).utf8), to: "site/big.txt")
                _ = try root.write(Data("small\n".utf8), to: "site/small.txt")
                let published = try await InProcessCLI.run(["publish", "site", "--server", server], in: root)
                try #require(published.status == 0, "\(published.errors)")
            }
            let backup = try await InProcessCLI.run(["backup", "--to", "backup", "--data", "data"], token: nil, in: root)
            try #require(backup.status == 0, "\(backup.output) \(backup.errors)")
            try await body(root)
        }
    }

    /// The blob files below `folder`'s `blobs/`, by path relative to it, with their bytes.
    static func files(in folder: URL) throws -> [String: Data] {
        let blobs = folder.appendingPathComponent("blobs")
        var files: [String: Data] = [:]
        for shard in try FileManager.default.contentsOfDirectory(atPath: blobs.path) {
            for name in try FileManager.default.contentsOfDirectory(atPath: blobs.appendingPathComponent(shard).path) {
                files["\(shard)/\(name)"] = try Data(contentsOf: blobs.appendingPathComponent(shard).appendingPathComponent(name))
            }
        }
        return files
    }

    static func isLink(_ url: URL) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) != nil
    }

    @Test(
        "backup --to a folder whose blobs/ is a link to another store, or whose blobs/xx is a link outside: refused in one line, the other folders untouched"
    )
    func plantedInTarget() async throws {
        try await Self.withBackup { root in
            let manager = FileManager.default
            // Another data folder's store, with a blob this one does not have.
            let other = root.appendingPathComponent("other")
            _ = try other.write(Data("the other store's blob".utf8), to: "blobs/cd/cd" + String(repeating: "1", count: 62))
            let before = try Self.files(in: other)
            try manager.createDirectory(at: root.appendingPathComponent("target-a"), withIntermediateDirectories: true)
            try manager.createSymbolicLink(
                atPath: root.appendingPathComponent("target-a/blobs").path,
                withDestinationPath: other.appendingPathComponent("blobs").path
            )
            let first = try await InProcessCLI.run(["backup", "--to", "target-a", "--data", "data"], token: nil, in: root)
            #expect(
                first.status == 1 && first.errors.contains("blobs is not a folder or file Depot made (a link?)"),
                "\(first.output) \(first.errors)"
            )
            #expect(first.errors.split(separator: "\n").count == 1, "\(first.errors)")
            #expect(try Self.files(in: other) == before)
            #expect(
                try manager.contentsOfDirectory(atPath: other.appendingPathComponent("blobs/cd").path).allSatisfy {
                    !Self.isLink(other.appendingPathComponent("blobs/cd/\($0)"))
                }
            )

            // A shard of the data folder's blobs planted as a link to an outside folder, with a
            // file there the backup would take for a stale blob.
            let shard = try #require(try manager.contentsOfDirectory(atPath: root.appendingPathComponent("data/blobs").path).sorted().first)
            let outside = root.appendingPathComponent("outside")
            let stale = outside.appendingPathComponent(shard + String(repeating: "2", count: 62))
            _ = try outside.write(Data("kept".utf8), to: stale.lastPathComponent)
            try manager.createDirectory(at: root.appendingPathComponent("target-b/blobs"), withIntermediateDirectories: true)
            try manager.createSymbolicLink(atPath: root.appendingPathComponent("target-b/blobs/\(shard)").path, withDestinationPath: outside.path)
            let second = try await InProcessCLI.run(["backup", "--to", "target-b", "--data", "data"], token: nil, in: root)
            #expect(second.status == 1 && second.errors.contains("blobs/\(shard) is not a folder or file Depot made (a link?)"), "\(second.errors)")
            #expect(try manager.contentsOfDirectory(atPath: outside.path) == [stale.lastPathComponent])
            #expect(try Data(contentsOf: stale) == Data("kept".utf8))
        }
    }

    @Test(
        "restore from a backup whose catalog, a blob or a shard is a link into a folder the attacker writes: refused in one line, no data folder made"
    )
    func plantedInBackup() async throws {
        try await Self.withBackup { root in
            let manager = FileManager.default
            let backup = root.appendingPathComponent("backup")
            let attacker = root.appendingPathComponent("attacker")
            try manager.createDirectory(at: attacker, withIntermediateDirectories: true)
            let shard = try #require(try manager.contentsOfDirectory(atPath: backup.appendingPathComponent("blobs").path).sorted().first)
            let blob = try #require(try manager.contentsOfDirectory(atPath: backup.appendingPathComponent("blobs/\(shard)").path).sorted().first)
            // Each planted link points at a copy that checks out, in a folder the attacker keeps.
            let plants: [(name: String, entry: String)] = [
                ("catalog", "catalog.sqlite"),
                ("blob", "blobs/\(shard)/\(blob)"),
                ("shard", "blobs/\(shard)"),
            ]
            for plant in plants {
                let planted = root.appendingPathComponent("planted-\(plant.name)")
                try manager.copyItem(at: backup, to: planted)
                let kept = attacker.appendingPathComponent(plant.name)
                try manager.moveItem(at: planted.appendingPathComponent(plant.entry), to: kept)
                try manager.createSymbolicLink(atPath: planted.appendingPathComponent(plant.entry).path, withDestinationPath: kept.path)
                let data = "restored-\(plant.name)"
                let restored = try await InProcessCLI.run(["restore", "--from", planted.lastPathComponent, "--data", data], token: nil, in: root)
                #expect(
                    restored.status == 1 && restored.errors.contains("\(plant.entry) is not a folder or file Depot made (a link?)"),
                    "\(plant.name): \(restored.output) \(restored.errors)"
                )
                #expect(restored.errors.split(separator: "\n").count == 1, "\(restored.errors)")
                #expect(!manager.fileExists(atPath: root.appendingPathComponent(data).path), "\(plant.name)")
            }
            #expect(try manager.contentsOfDirectory(atPath: root.path).filter { $0.hasPrefix(".restored") }.isEmpty)
        }
    }

    @Test("restore from a backup without its .gz files: refused, naming the missing variant; no data folder made")
    func missingGzipVariants() async throws {
        try await Self.withBackup { root in
            let manager = FileManager.default
            let stripped = root.appendingPathComponent("stripped")
            try manager.copyItem(at: root.appendingPathComponent("backup"), to: stripped)
            let gzip = try Self.files(in: stripped).keys.filter { $0.hasSuffix(".gz") }
            try #require(!gzip.isEmpty, "the published file has no gzip variant")
            for name in gzip { try manager.removeItem(at: stripped.appendingPathComponent("blobs/\(name)")) }
            let restored = try await InProcessCLI.run(["restore", "--from", "stripped", "--data", "restored"], token: nil, in: root)
            #expect(restored.status == 1 && restored.errors.contains("blob file(s) its catalog names, as "), "\(restored.output) \(restored.errors)")
            #expect(restored.errors.contains(".gz"), "\(restored.errors)")
            #expect(!manager.fileExists(atPath: root.appendingPathComponent("restored").path))
            // The whole backup restores.
            let whole = try await InProcessCLI.run(["restore", "--from", "backup", "--data", "restored"], token: nil, in: root)
            #expect(whole.status == 0, "\(whole.output) \(whole.errors)")
        }
    }
}
