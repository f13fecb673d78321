import Crypto
import DepotClient
import DepotManifest
import DepotServer
import DepotStore
import DepotTestSupport
import Foundation
import NIOCore
import Testing

/// A client facing a hostile or broken server (or a cache in between): documents served from a
/// public folder say what the test wants, and the client must write nothing outside its
/// folder, download no more than promised, hold no more than its limits in memory, and switch
/// to no release it cannot fetch whole.
@Suite("Hostile release documents")
struct HostileReleaseTests {
    static let blob = Data(String(repeating: "blob bytes\n", count: 500).utf8)

    /// Serves `release` from `/evil/` and syncs a fresh folder from there (made first with
    /// `existingFolder`: a first sync that fails removes a folder it made, and what it held).
    static func sync(
        _ release: FakeRelease,
        configuration: DepotClient.Configuration = .init(),
        existingFolder: Bool = false,
        corrupt: ((URL) throws -> Void)? = nil,
        check: @Sendable (Result<SyncReport, any Error>, URL) throws -> Void
    ) async throws {
        let prepare: (URL) throws -> Void = { folder in
            let evil = folder.appendingPathComponent("evil")
            try release.write(to: evil, blobs: [blob])
            try corrupt?(evil)
        }
        try await InProcessServer.with(prepare: prepare) { server in
            try await withTemporaryDirectory { root in
                let folder = root.appendingPathComponent("sync")
                if existingFolder { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
                let client = DepotClient(server: URL(string: server.url("/evil/"))!, directory: folder, configuration: configuration)
                let result: Result<SyncReport, any Error>
                do { result = .success(try await client.sync()) } catch { result = .failure(error) }
                try check(result, root)
            }
        }
    }

    static func files(under root: URL) -> [String] {
        (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []).sorted()
    }

    @Test(
        "a hash field that is not 64 lower-case hex digits is refused before it names a file",
        arguments: ["../../../escaped", "../../escaped", String(repeating: "A", count: 64), String(repeating: "a", count: 63)]
    )
    func hashAsFileName(sha256: String) async throws {
        try await Self.sync(FakeRelease(entries: [FakeRelease.entry("a.bin", Self.blob, sha256: sha256)])) { result, root in
            #expect { try result.get() } throws: { "\($0)".contains("lower-case hex") }
            #expect(!Self.files(under: root).contains { $0.contains("escaped") || $0.hasSuffix(".partial") })
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("sync/a.bin").path))
        }
    }

    @Test("a release or page whose bytes do not have the SHA-256 of their name is refused", arguments: ["releases", "pages"])
    func documentNotItsName(kind: String) async throws {
        let release = FakeRelease(entries: [FakeRelease.entry("a.bin", Self.blob)])
        let corrupt: (URL) throws -> Void = { evil in
            let name = kind == "releases" ? release.releaseID : Fixture.sha256(release.page)
            let url = evil.appendingPathComponent("\(kind)/\(name)")
            try (try Data(contentsOf: url) + Data(" ".utf8)).write(to: url)
        }
        try await Self.sync(release, corrupt: corrupt) { result, root in
            #expect { try result.get() } throws: { "\($0)".contains("does not have the SHA-256 its name says") }
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("sync/a.bin").path))
        }
    }

    @Test(
        "a patch of a document that does not make the document named, or is a decompression bomb, costs one request: the whole document is fetched",
        arguments: [false, true]
    )
    func badDocumentPatch(bomb: Bool) async throws {
        let second = Data("second\n".utf8)
        let one = FakeRelease(entries: [FakeRelease.entry("a.bin", Self.blob)])
        var next = FakeRelease(entries: [FakeRelease.entry("a.bin", Self.blob), FakeRelease.entry("b.bin", second)])
        next.number = 2
        next.serial = 2
        let two = next
        let prepare: (URL) throws -> Void = { folder in
            try one.write(to: folder.appendingPathComponent("one"), blobs: [Self.blob])
            let evil = folder.appendingPathComponent("two")
            try two.write(to: evil, blobs: [Self.blob, second])
            // Patches that make something else (a valid patch that makes the first release again),
            // nothing at great cost (DecompressionBombTests.patch), and garbage.
            let sameAsOne = try DeltaMaker.make(from: Array(one.release), to: Array(one.release))
            let releasePatch = bomb ? DecompressionBombTests.patch : Data(sameAsOne.readableBytesView)
            _ = try evil.write(releasePatch, to: "deltas/\(one.releaseID)/\(two.releaseID)")
            _ = try evil.write(Data("not gzip".utf8), to: "deltas/\(Fixture.sha256(one.page))/\(Fixture.sha256(two.page))")
        }
        try await InProcessServer.with(prepare: prepare) { server in
            try await withTemporaryDirectory { root in
                let folder = root.appendingPathComponent("sync")
                _ = try await DepotClient(server: URL(string: server.url("/one/"))!, directory: folder).sync()
                let report = try await DepotClient(server: URL(string: server.url("/two/"))!, directory: folder).sync()
                #expect(report.files.map(\.path) == ["b.bin"])
                #expect(try Data(contentsOf: folder.appendingPathComponent("b.bin")) == second)
                let asked = server.requests.snapshot.keys.filter { $0.path.hasPrefix("/two/") }.map(\.path)
                #expect(asked.contains("/two/deltas/\(one.releaseID)/\(two.releaseID)") && asked.contains("/two/releases/\(two.releaseID)"))
            }
        }
    }

    @Test(
        "a block index listed with a size no index of the file has (up to 2^63 − 1) is not fetched, nor held: the file is downloaded whole",
        arguments: [Int64.max, Int64.max / 2, 1 << 40]
    )
    func hugeBlockIndex(size: Int64) async throws {
        let second = Data(String(repeating: "other bytes\n", count: 500).utf8)
        var entry = FakeRelease.entry("a.bin", second)
        entry.blocks = .init(size: size, sha256: Fixture.sha256(Data("an index".utf8)))
        let one = FakeRelease(entries: [FakeRelease.entry("a.bin", Self.blob)])
        var two = FakeRelease(entries: [entry])
        two.number = 2
        two.serial = 2
        let prepare: (URL) throws -> Void = { [two] folder in
            try one.write(to: folder.appendingPathComponent("one"), blobs: [Self.blob])
            try two.write(to: folder.appendingPathComponent("two"), blobs: [second])
        }
        try await InProcessServer.with(prepare: prepare) { server in
            try await withTemporaryDirectory { root in
                let folder = root.appendingPathComponent("sync")
                _ = try await DepotClient(server: URL(string: server.url("/one/"))!, directory: folder).sync()
                let report = try await DepotClient(server: URL(string: server.url("/two/"))!, directory: folder).sync()
                #expect(report.files.map(\.outcome) == [.full], "\(report.files)")
                #expect(try Data(contentsOf: folder.appendingPathComponent("a.bin")) == second)
                #expect(!server.requests.snapshot.keys.contains { $0.path.hasSuffix(".blocks") }, "the index was not asked for")
            }
        }
    }

    @Test(
        "a leaked key's serial 25 pins a client only while it trusts that key: trusting only the new key, serial 2 is taken; trusting both, it is a replay"
    )
    func leakedKeySerialFloor() async throws {
        let leaked = Curve25519.Signing.PrivateKey()
        let replacement = Curve25519.Signing.PrivateKey()
        var forged = FakeRelease(entries: [FakeRelease.entry("a.bin", Self.blob)])
        forged.serial = 25
        forged.key = leaked
        var genuine = FakeRelease(entries: [FakeRelease.entry("a.bin", Self.blob), FakeRelease.entry("b.bin", Data("b".utf8))])
        genuine.number = 2
        genuine.serial = 2
        genuine.key = replacement
        let prepare: (URL) throws -> Void = { [forged, genuine] folder in
            try forged.write(to: folder.appendingPathComponent("forged"), blobs: [Self.blob])
            try genuine.write(to: folder.appendingPathComponent("genuine"), blobs: [Self.blob, Data("b".utf8)])
        }
        try await InProcessServer.with(prepare: prepare) { server in
            try await withTemporaryDirectory { root in
                let folder = root.appendingPathComponent("sync")
                let sync = { (source: String, keys: [Curve25519.Signing.PrivateKey]) in
                    try await DepotClient(
                        server: URL(string: server.url("/\(source)/"))!,
                        directory: folder,
                        configuration: .init(trustedKeys: keys.map { $0.publicKey.rawRepresentation.base64EncodedString() })
                    ).sync()
                }
                let pinned = try await sync("forged", [leaked])
                #expect(pinned.release?.number == 1)
                await #expect { try await sync("genuine", [leaked, replacement]) } throws: { "\($0)".contains("lower than the 25") }
                let recovered = try await sync("genuine", [replacement])
                #expect(recovered.release?.number == 2, "the app now trusts only the new key")
            }
        }
    }

    @Test("a download longer than the release's size stops there and fails, writing no more than promised; nothing is switched")
    func downloadCap() async throws {
        let release = FakeRelease(entries: [FakeRelease.entry("a.bin", Self.blob, size: 100), FakeRelease.entry("b.bin", Data("b".utf8))])
        try await Self.sync(release, existingFolder: true) { result, root in
            let report = try result.failedReport()
            let failed = try #require(report.files.first { $0.path == "a.bin" })
            #expect(failed.outcome == .failed)
            #expect(failed.error?.contains("longer than the 100 bytes") == true, "\(report.files)")
            let partials = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("sync/.depot/partial").path)
            for name in partials {
                let size =
                    try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent("sync/.depot/partial/\(name)").path)[.size] as? Int
                #expect((size ?? 0) <= 100)
            }
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("sync/a.bin").path))
            #expect(
                !FileManager.default.fileExists(atPath: root.appendingPathComponent("sync/b.bin").path),
                "the release is applied whole or not at all"
            )
            #expect(report.release == nil)
        }
    }

    @Test("a document over the client's limit fails the sync")
    func documentCap() async throws {
        let entries = (0..<20).map { FakeRelease.entry("file-\($0).bin", Self.blob) }
        try await Self.sync(FakeRelease(entries: entries), configuration: .init(maximumDocumentBytes: 2_000)) { result, _ in
            #expect { try result.get() } throws: { "\($0)".contains("larger than the limit of 2000 bytes") }
        }
    }

    @Test("a path in the client's own folder, in any letter case, is not written", arguments: [".depot/planted", ".DEPOT/x", ".Depot/partial/y"])
    func reservedFolder(path: String) async throws {
        try await Self.sync(FakeRelease(entries: [FakeRelease.entry(path, Self.blob)])) { result, root in
            let report = try result.failedReport()
            #expect(report.files.first?.outcome == .failed)
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("sync/\(path)").path))
        }
    }

    @Test("paths that would be one file on a case-insensitive volume fail the release; nothing is written")
    func collidingPaths() async throws {
        let entries = ["Photo.bin", "photo.bin"].map { FakeRelease.entry($0, Self.blob) }
        try await Self.sync(FakeRelease(entries: entries)) { result, root in
            #expect { try result.get() } throws: { "\($0)".contains("one file on some file systems") }
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("sync/Photo.bin").path))
        }
    }
}
