import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// Issue 56, items 8 and 9: what a sync says when it fails or stops short, against a real
/// server. A disk too small is refused before a byte is fetched, in words; a first sync that
/// fails leaves no folder; a 404 names the URL asked; a check's estimate counts the documents the
/// download fetches; a download counts its files as staged.
@Suite("What a sync says when it fails or stops short")
struct SyncFailureTextTests {
    static let large = Fixture.pseudoRandom(count: 3_000_000, seed: 56)

    /// Everything under `folder`, recursively, files only.
    static func files(under folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        return (enumerator?.allObjects as? [URL] ?? []).filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .map(\.lastPathComponent)
    }

    @Test("a release the disk has no room for is refused before its files are fetched, saying what it needs and what is free")
    func noSpace() async throws {
        var configuration = DepotClient.Configuration()
        configuration.freeSpace = FreeSpace { _ in 1_000_000 }
        try await SyncStepsTests.withReleaseOne(configuration: configuration) { server, folder, client in
            try await server.publish([("big.bin", Self.large)])
            let error = await #expect(throws: SyncError.self) { try await client.sync() }
            #expect(error?.code == .noSpace && error?.requiredBytes == Int64(Self.large.count) && error?.freeBytes == 1_000_000)
            #expect(error?.message.hasPrefix("release 2 needs 3.0 MB of space in \(folder.path), 1.0 MB free") == true, "\(error?.message ?? "")")
            #expect(Self.files(under: folder.appendingPathComponent(".depot/staging")).isEmpty, "staged before the space was checked")
            #expect(Self.files(under: folder.appendingPathComponent(".depot/partial")).isEmpty, "fetched before the space was checked")
            #expect(client.currentRelease?.number == 1)
            // A download is refused alike; a check says what is needed and refuses nothing.
            #expect(try await client.check().requiredBytes == Int64(Self.large.count))
            await #expect(throws: SyncError.self) { try await client.download() }
        }
    }

    @Test("on a real file system too small, a first sync says so in words and leaves no folder", .enabled(if: getuid() == 0))
    func smallFileSystem() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("big.bin", Self.large)])
            try await withTemporaryDirectory { root in
                let small = root.appendingPathComponent("small")
                try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
                let mount = try await ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", small.path])
                try #require(mount.status == 0)
                let folder = small.appendingPathComponent("out")
                let error = await #expect(throws: SyncError.self) { try await SyncTests.client(server, folder).sync() }
                let left = FileManager.default.fileExists(atPath: folder.path)
                // Unmounted lazily (a descriptor may still be open); scripts/test unmounts what a
                // crash leaves.
                _ = try await ChildProcess.run("/bin/umount", ["-l", small.path])
                #expect(error?.code == .noSpace, "\(error?.message ?? "")")
                #expect(
                    error?.message.contains("NSCocoaErrorDomain") == false && error?.message.contains("needs 3.0 MB") == true,
                    "\(error?.message ?? "")"
                )
                #expect(!left, "the failed first sync left its folder")
            }
        }
    }

    @Test("a first sync that fails removes the folders it made, and names the full URL it asked, without credentials")
    func failedFirstSync() async throws {
        try await InProcessServer.withPublishing { server in
            try await withTemporaryDirectory { root in
                let host = try #require(URL(string: server.url("/"))?.host)
                let base = try #require(URL(string: "http://reader:s3cret@\(host)/app/"))
                let folder = root.appendingPathComponent("new/inner")
                let error = await #expect(throws: SyncError.self) { try await DepotClient(server: base, directory: folder).sync() }
                let message = error?.message ?? ""
                #expect(message.contains("http://\(host)/app/channels/stable answered 404"), "\(message)")
                #expect(!message.contains("s3cret") && !message.contains("reader@"), "\(message)")
                #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("new").path), "the failed first sync left its folder")

                // A folder that was there stays, whatever fails.
                let existing = root.appendingPathComponent("existing")
                try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: true)
                await #expect(throws: SyncError.self) { try await DepotClient(server: base, directory: existing).sync() }
                #expect(FileManager.default.fileExists(atPath: existing.path))
            }
        }
    }

    @Test("a check of a new folder, and a first sync whose files fail (thrown, the report attached), leave no folder")
    func checkAndFailedFilesLeaveNothing() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("noise.bin", Fixture.pseudoRandom(count: 100_000, seed: 57))])
            try await InProcessRelay.with(in: server) { relay in
                try await withTemporaryDirectory { root in
                    let base = try #require(URL(string: relay.url("/")))
                    let folder = root.appendingPathComponent("new/inner")
                    let plan = try await DepotClient(server: base, directory: folder).check()
                    #expect(plan.files.map(\.path) == ["noise.bin"])
                    #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("new").path), "the check left its folder")

                    // Every blob altered on the way: the file fails its SHA-256, and the sync throws its report.
                    relay.tamper("/blobs/")
                    let report = try await failedReport { try await DepotClient(server: base, directory: folder).sync() }
                    #expect(report.failedCount == 1, "\(report.files)")
                    #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("new").path), "the failed first sync left its folder")
                }
            }
        }
    }

    @Test("a check's estimate is within 5% of what the download then transfers, documents included, and its totals are in its JSON")
    func estimateCountsDocuments() async throws {
        try await SyncStepsTests.withReleaseOne { server, _, client in
            try await server.publish([("a.txt", Data("two\n".utf8))])
            let plan = try await client.check()
            #expect(plan.documentBytes > 0, "the download polls the channel again")
            let downloaded = try await client.download()
            #expect(
                abs(Double(downloaded.bytesTransferred - plan.transferBytes)) <= Double(plan.transferBytes) * 0.05,
                "\(downloaded.bytesTransferred) transferred (\(downloaded.documentBytes) of documents), \(plan.transferBytes) expected"
            )
            let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(plan)) as? [String: Any])
            #expect(json["expectedBytes"] as? Int == Int(plan.expectedBytes) && json["requiredBytes"] as? Int == Int(plan.requiredBytes))
            #expect(json["transferBytes"] as? Int == Int(plan.transferBytes) && json["documentBytes"] as? Int == Int(plan.documentBytes))
            #expect(try JSONDecoder().decode(UpdatePlan.self, from: JSONEncoder().encode(plan)) == plan)
        }
    }

    @Test("a download counts its files as staged, not updated; the sync that applies them counts them updated")
    func stagedCounted() async throws {
        try await SyncStepsTests.withReleaseOne { server, _, client in
            try await server.publish([("a.txt", Data("two\n".utf8)), ("b.txt", Data("bee\n".utf8))])
            let downloaded = try await client.download()
            #expect(downloaded.stagedCount == 2 && downloaded.updatedCount == 0, "\(downloaded.files.map(\.outcome))")
            #expect(downloaded.staged?.number == 3 && downloaded.release?.number == 1)
            let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(downloaded)) as? [String: Any])
            #expect(json["stagedCount"] as? Int == 2 && json["updatedCount"] as? Int == 0)
            let synced = try await client.sync()
            #expect(synced.updatedCount == 2 && synced.stagedCount == 0 && synced.staged == nil && synced.release?.number == 3)
        }
    }
}
