import DepotClient
import DepotManifest
import DepotServer
import DepotTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A cache or mirror that redirects the client elsewhere: only redirects on the same origin are
/// followed. In process: ``InProcessURLProtocol`` puts each redirect to the client's session
/// delegate, which follows or refuses it.
@Suite("Redirects")
struct RedirectTests {
    static let blob = Data("the blob\n".utf8)
    static let release = FakeRelease(entries: [FakeRelease.entry("a.bin", blob)])

    /// A server of `release` whose blob redirects to `location`; with `channelTo`, the channel
    /// document itself redirects there.
    static func server(location: String, channelTo: String? = nil) -> some ApplicationProtocol {
        let router = Router()
        router.get("/channels/stable") { _, _ -> Response in
            if let channelTo { return Response(status: .found, headers: [.location: channelTo]) }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: release.channelDocument)))
        }
        router.get("/releases/\(release.releaseID)") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: release.release))) }
        router.get("/pages/\(Fixture.sha256(release.page))") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: release.page)))
        }
        router.get("/blobs/\(Fixture.sha256(blob))") { _, _ in Response(status: .found, headers: [.location: location]) }
        router.get("/blob.bin") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: blob))) }
        return Application(router: router)
    }

    static func sync(_ app: some ApplicationProtocol) async throws -> Result<SyncReport, any Error> {
        try await app.test(.router) { client in
            try await InProcessURLProtocol.serving(client) { base in
                try await withTemporaryDirectory { folder in
                    // No minimum rate: redirects are the subject, and a loaded machine can
                    // starve the test process for longer than a rate window.
                    let depot = DepotClient(
                        server: URL(string: base + "/")!,
                        directory: folder,
                        configuration: DepotClient.Configuration(minimumTransferRate: 0)
                    )
                    do { return .success(try await depot.sync()) } catch { return .failure(error) }
                }
            }
        }
    }

    @Test("a blob redirect to another origin is refused; the file fails and nothing is fetched there")
    func blobToOtherOrigin() async throws {
        let prepare: (URL) throws -> Void = { try $0.write(Self.blob, to: "blob.bin") }
        try await InProcessServer.with(prepare: prepare) { other in
            let result = try await Self.sync(Self.server(location: other.url("/blob.bin")))
            let report = try result.failedReport()
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

    @Test("a channel redirect to another origin fails the sync")
    func channelToOtherOrigin() async throws {
        try await InProcessServer.with { other in
            let result = try await Self.sync(Self.server(location: "/blob.bin", channelTo: other.url("/channels/stable")))
            #expect(throws: SyncError.self) { try result.get() }
            #expect(other.requests.total(pathPrefix: "/channels/") == 0)
        }
    }
}
