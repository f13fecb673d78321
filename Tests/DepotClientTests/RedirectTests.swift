import DepotClient
import DepotManifest
import DepotServer
import DepotTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A cache or mirror that redirects the client elsewhere: only redirects on the same origin are
/// followed.
@Suite("Redirects")
struct RedirectTests {
    static let blob = Data("the blob\n".utf8)

    /// A server whose manifest lists `/moved/blob.bin`, which redirects to `location`; with
    /// `manifestTo`, the manifest itself redirects there.
    static func server(location: String, manifestTo: String? = nil) -> some ApplicationProtocol {
        let sha256 = Fixture.sha256(blob)
        let manifest = Manifest(
            serial: 1,
            generatedAt: "Tue, 14 Nov 2023 22:13:20 GMT",
            files: [
                Manifest.Entry(
                    path: "a.bin",
                    version: 1,
                    size: Int64(blob.count),
                    sha256: sha256,
                    md5: Fixture.md5(blob),
                    etag: "\"\(sha256)\"",
                    lastModified: "Tue, 14 Nov 2023 22:13:20 GMT",
                    contentType: "application/octet-stream",
                    url: "/files/a.bin",
                    blob: "/moved/blob.bin",
                    gzip: nil
                )
            ]
        )
        let router = Router()
        router.get("/manifest.json") { _, _ -> Response in
            if let manifestTo { return Response(status: .found, headers: [.location: manifestTo]) }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(manifest))))
        }
        router.get("/moved/blob.bin") { _, _ in Response(status: .found, headers: [.location: location]) }
        router.get("/blob.bin") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: blob))) }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    static func sync(_ app: some ApplicationProtocol) async throws -> Result<SyncReport, any Error> {
        try await app.test(.live) { client in
            try await withTemporaryDirectory { folder in
                let depot = DepotClient(server: URL(string: "http://127.0.0.1:\(client.port!)/")!, directory: folder)
                do { return .success(try await depot.sync()) } catch { return .failure(error) }
            }
        }
    }

    @Test("a blob redirect to another origin is refused; the file fails and nothing is fetched there")
    func blobToOtherOrigin() async throws {
        let prepare: (URL) throws -> Void = { try $0.write(Self.blob, to: "blob.bin") }
        try await LiveServer.with(prepare: prepare) { other in
            let result = try await Self.sync(Self.server(location: other.url("/blob.bin")))
            let report = try result.get()
            #expect(report.files.first?.outcome == .failed)
            #expect(report.files.first?.error?.contains("302") == true, "\(report.files)")
            #expect(other.requests.total(pathPrefix: "/blob.bin") == 0)
        }
    }

    @Test("a blob redirect on the same origin is followed")
    func blobSameOrigin() async throws {
        let report = try await Self.sync(Self.server(location: "/blob.bin")).get()
        #expect(report.files.first?.outcome == .full)
    }

    @Test("a manifest redirect to another origin fails the sync")
    func manifestToOtherOrigin() async throws {
        try await LiveServer.with { other in
            let result = try await Self.sync(Self.server(location: "/blob.bin", manifestTo: other.url("/manifest.json")))
            #expect(throws: SyncError.self) { try result.get() }
            #expect(other.requests.total(pathPrefix: "/manifest.json") == 0)
        }
    }
}
