import Crypto
import DepotClient
import DepotHTTP
import DepotManifest
import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// A client behind a mirror or cache that answers 304 for ever: every sync checks the document
/// the 304 stands for again, so the freeze ends with the document's expiry, and a document is
/// reported verified only when this sync verified it.
@Suite("Stale mirrors")
struct StaleMirrorTests {
    static let blob = Data("content\n".utf8)

    /// Serves `release` from the public folder at `/mirror/` and runs `body` with a client of it.
    static func withMirror(
        _ release: FakeRelease,
        _ body: @Sendable (InProcessServer, URL) async throws -> Void
    ) async throws {
        let prepare: (URL) throws -> Void = { try release.write(to: $0.appendingPathComponent("mirror"), blobs: [blob]) }
        try await InProcessServer.with(prepare: prepare) { server in
            try await withTemporaryDirectory { root in
                try await body(server, root.appendingPathComponent("sync"))
            }
        }
    }

    /// A client of the mirror trusting `keys`; `replacingTrust`: told it may replace the trust
    /// the folder was synced with (``DepotClient/Configuration/replacesTrust``).
    static func client(
        _ server: some TestServer,
        _ folder: URL,
        trusting keys: [Curve25519.Signing.PrivateKey],
        replacingTrust: Bool = false
    ) -> DepotClient {
        var configuration = DepotClient.Configuration(trustedKeys: keys.map { $0.publicKey.rawRepresentation.base64EncodedString() })
        configuration.replacesTrust = replacingTrust
        return DepotClient(server: URL(string: server.url("/mirror/"))!, directory: folder, configuration: configuration)
    }

    @Test("a 304 for a document that has since expired fails the sync with 'expired', and changes nothing")
    func expiredBehind304() async throws {
        let key = Curve25519.Signing.PrivateKey()
        var release = FakeRelease(entries: [FakeRelease.entry("a.txt", Self.blob)], key: key)
        let expires = Int64(Date().timeIntervalSince1970) + 3600
        release.expires = HTTPDate(secondsSince1970: expires).imfFixdate
        try await Self.withMirror(release) { server, folder in
            var client = Self.client(server, folder, trusting: [key])
            let first = try await client.sync()
            #expect(first.signature == .verified)
            let fresh = try await client.sync()
            #expect(fresh.channelNotModified && fresh.signature == .verified, "verified again in this sync, before it expired")
            client.now = { expires + 1 }
            await #expect { try await client.sync() } throws: { ($0 as? SyncError)?.code == .untrusted && "\($0)".contains("expired") }
            #expect(server.requests.snapshot.keys.contains { $0.path == "/mirror/channels/stable" && $0.status == 304 })
            #expect(try Data(contentsOf: folder.appendingPathComponent("a.txt")) == Self.blob)
            #expect(client.currentRelease?.number == 1)
        }
    }

    @Test("a 304 for a document signed by a key no longer trusted fails the sync; the report never says verified for it")
    func untrustedBehind304() async throws {
        let old = Curve25519.Signing.PrivateKey()
        let new = Curve25519.Signing.PrivateKey()
        try await Self.withMirror(FakeRelease(entries: [FakeRelease.entry("a.txt", Self.blob)], key: old)) { server, folder in
            #expect(try await Self.client(server, folder, trusting: [old]).sync().signature == .verified)
            // The folder remembers the key it was synced with: another is taken only when told.
            await #expect { try await Self.client(server, folder, trusting: [new]).sync() } throws: {
                "\($0)".contains("this sync trusts key \(ChannelCheck.keyID(of: new.publicKey)) only")
            }
            await #expect { try await Self.client(server, folder, trusting: [new], replacingTrust: true).sync() } throws: {
                "\($0)".contains("not signed by a trusted key")
            }
            let unchecked = try await Self.client(server, folder, trusting: [], replacingTrust: true).sync()
            #expect(unchecked.channelNotModified)
            #expect(unchecked.signature == .notChecked, "no key trusted: not checked, whatever an earlier sync found")
        }
    }
}
