import DepotClient
import DepotManifest
import DepotTestSupport
import Foundation
import Testing

/// A client facing a hostile or broken server (or a cache in between): a manifest served from a
/// public folder says what the test wants, and the client must write nothing outside its
/// folder, download no more than promised, and hold no more than its limits in memory.
@Suite("Hostile manifests")
struct HostileManifestTests {
    static let blob = Data(String(repeating: "blob bytes\n", count: 500).utf8)

    static func entry(
        _ path: String,
        sha256: String = Fixture.sha256(blob),
        size: Int64 = Int64(blob.count),
        blob url: String = "/evil/blob.bin"
    )
        -> Manifest.Entry
    {
        Manifest.Entry(
            path: path,
            version: 1,
            size: size,
            sha256: sha256,
            md5: Fixture.md5(blob),
            etag: "\"\(sha256)\"",
            lastModified: "Tue, 14 Nov 2023 22:13:20 GMT",
            contentType: "application/octet-stream",
            url: "/files/\(path)",
            blob: url,
            gzip: nil
        )
    }

    /// Serves `entries` as `/evil/manifest.json` with `blob` at `/evil/blob.bin`, and syncs a
    /// fresh folder from `/evil/`.
    static func sync(
        _ entries: [Manifest.Entry],
        configuration: DepotClient.Configuration = .init(),
        check: @Sendable (Result<SyncReport, any Error>, URL) throws -> Void
    ) async throws {
        let manifest = try JSONEncoder().encode(Manifest(serial: 1, generatedAt: "Tue, 14 Nov 2023 22:13:20 GMT", files: entries))
        let prepare: (URL) throws -> Void = { folder in
            try folder.write(manifest, to: "evil/manifest.json")
            try folder.write(blob, to: "evil/blob.bin")
        }
        try await LiveServer.with(prepare: prepare) { server in
            try await withTemporaryDirectory { root in
                let folder = root.appendingPathComponent("sync")
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
        try await Self.sync([Self.entry("a.bin", sha256: sha256)]) { result, root in
            #expect { try result.get() } throws: { "\($0)".contains("lower-case hex") }
            #expect(!Self.files(under: root).contains { $0.contains("escaped") || $0.hasSuffix(".partial") })
        }
    }

    @Test(
        "a blob URL to another host is refused",
        arguments: ["http://203.0.113.7/blob.bin", "//203.0.113.7/blob.bin", "https://127.0.0.1/evil/blob.bin"]
    )
    func foreignBlobURL(url: String) async throws {
        try await Self.sync([Self.entry("a.bin", blob: url)]) { result, _ in
            #expect { try result.get() } throws: { "\($0)".contains("not a path on this server") }
        }
    }

    @Test("a download longer than the manifest's size stops there and fails, writing no more than promised")
    func downloadCap() async throws {
        try await Self.sync([Self.entry("a.bin", size: 100)]) { result, root in
            let report = try result.get()
            #expect(report.files.first?.outcome == .failed)
            #expect(report.files.first?.error?.contains("longer than the 100 bytes") == true, "\(report.files)")
            let partials = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("sync/.depot/partial").path)
            for name in partials {
                let size =
                    try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent("sync/.depot/partial/\(name)").path)[.size] as? Int
                #expect((size ?? 0) <= 100)
            }
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("sync/a.bin").path))
        }
    }

    @Test("a manifest over the client's limit fails the sync")
    func manifestCap() async throws {
        let entries = (0..<20).map { Self.entry("file-\($0).bin") }
        try await Self.sync(entries, configuration: .init(maximumManifestBytes: 2_000)) { result, _ in
            #expect { try result.get() } throws: { "\($0)".contains("larger than the limit of 2000 bytes") }
        }
    }

    @Test("a path in the client's own folder, in any letter case, is not written", arguments: [".depot/planted", ".DEPOT/x", ".Depot/partial/y"])
    func reservedFolder(path: String) async throws {
        try await Self.sync([Self.entry(path)]) { result, root in
            let report = try result.get()
            #expect(report.files.first?.outcome == .failed)
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("sync/\(path)").path))
        }
    }

    @Test("paths that would be one file on a case-insensitive volume: the first is synced, the other fails")
    func collidingPaths() async throws {
        try await Self.sync([Self.entry("Photo.bin"), Self.entry("photo.bin"), Self.entry("Photo.bin/inner")]) { result, root in
            let report = try result.get()
            #expect(report.files.map(\.outcome) == [.full, .failed, .failed])
            #expect(report.files[1].error?.contains("collides with Photo.bin") == true)
            #expect(try Data(contentsOf: root.appendingPathComponent("sync/Photo.bin")) == Self.blob)
        }
    }
}
