import Crypto
import DepotHTTP
import DepotManifest
import DepotServer
import DepotSigning
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// Channel documents judged under a root (The Update Framework's root role): thresholds, the
/// root's expiry, and serials scoped to the root version.
@Suite("Root of trust in the client")
struct RootTrustTests {
    static let rootKey = Curve25519.Signing.PrivateKey()
    static let channelKeys = (0..<3).map { _ in Curve25519.Signing.PrivateKey() }
    static let stranger = Curve25519.Signing.PrivateKey()
    static let release = String(repeating: "a", count: 64)
    /// 2026-11-23 12:00:00 UTC.
    static let now: Int64 = 1_795_435_200

    /// Root `version` with the three channel keys, 2 of which must sign, signed by the root key.
    static func root(version: Int64 = 1, expires: Int64 = now + 86_400) -> RootDocument {
        Fixture.root(
            version: version,
            expires: HTTPDate(secondsSince1970: expires).imfFixdate,
            rootKey: rootKey,
            channelKeys: channelKeys,
            threshold: 2
        )
    }

    static func document(root: Int64? = 1, serial: Int64 = 10, signedBy keys: [Curve25519.Signing.PrivateKey]) -> ChannelDocument {
        Fixture.channelDocument(release: release, number: 3, serial: serial, root: root, signedBy: keys)
    }

    static let cases: [(name: String, document: ChannelDocument, root: RootDocument, last: ChannelCheck.Accepted?, refusal: String?)] = [
        ("two of three channel keys", document(signedBy: Array(channelKeys.prefix(2))), root(), nil, nil),
        ("one of three: under the threshold", document(signedBy: [channelKeys[0]]), root(), nil, "signed by 1 of root 1's channel keys; it needs 2"),
        ("one key twice counts once", document(signedBy: [channelKeys[0], channelKeys[0]]), root(), nil, "signed by 1 of root 1's"),
        ("a stranger and one key", document(signedBy: [stranger, channelKeys[1]]), root(), nil, "signed by 1 of root 1's"),
        ("the root key is no channel key", document(signedBy: [rootKey, channelKeys[1]]), root(), nil, "signed by 1 of root 1's"),
        ("no root named", document(root: nil, signedBy: Array(channelKeys.prefix(2))), root(), nil, "not signed under a root"),
        (
            "an older root: a replay", document(root: 1, signedBy: Array(channelKeys.prefix(2))), root(version: 2), nil,
            "older than the root 2 trusted"
        ),
        ("the root expired", document(signedBy: Array(channelKeys.prefix(2))), root(expires: now - 1), nil, "the root document (version 1) expired"),
        (
            "a new root starts serials afresh (recovery from a fast-forward)", document(root: 2, serial: 3, signedBy: Array(channelKeys.prefix(2))),
            root(version: 2), .init(serial: 25, release: release, root: 1), nil
        ),
        (
            "under the same root, a lower serial is a replay", document(root: 1, serial: 3, signedBy: Array(channelKeys.prefix(2))), root(),
            .init(serial: 25, release: release, root: 1), "lower than the 25 accepted before"
        ),
    ]

    @Test("each document is judged as the root says", arguments: cases.indices)
    func judged(index: Int) {
        let (name, document, root, last, refusal) = Self.cases[index]
        do {
            let status = try ChannelCheck.check(document, channel: "stable", trust: .root(root), now: Self.now, lastAccepted: last)
            #expect(refusal == nil && status == .verified, "\(name)")
        } catch {
            #expect(refusal.map { "\(error)".contains($0) } == true, "\(name): \(error)")
        }
    }

    @Test("a server refuses to start on an expired root, or without enough distinct channel keys")
    func serverRefusesExpiredRoot() throws {
        let root = Self.root(expires: Self.now - 1)
        let bytes = Array(try JSONEncoder().encode(root))
        #expect {
            try ChannelSigner(keys: Self.channelKeys, roots: [.init(bytes: bytes, document: root)], now: HTTPDate(secondsSince1970: Self.now))
        } throws: {
            "\($0)".contains("root 1 expired")
        }
        let valid = Self.root()
        #expect {
            try ChannelSigner(
                keys: [Self.channelKeys[0], Self.stranger],
                roots: [.init(bytes: Array(try JSONEncoder().encode(valid)), document: valid)],
                now: HTTPDate(secondsSince1970: Self.now)
            )
        } throws: { "\($0)".contains("hold 1 of them") }
        // One key file listed twice is one key: short of a 2-of-3 threshold.
        #expect {
            try ChannelSigner(
                keys: [Self.channelKeys[0], Self.channelKeys[0]],
                roots: [.init(bytes: Array(try JSONEncoder().encode(valid)), document: valid)],
                now: HTTPDate(secondsSince1970: Self.now)
            )
        } throws: { "\($0)".contains("hold 1 of them") }
    }

    @Test("a client whose root expired refuses the server's documents, even behind a 304")
    func expiredRoot() async throws {
        let wallClock = Int64(Date().timeIntervalSince1970)
        let root = Self.root(expires: wallClock + 86_400)
        let bytes = try JSONEncoder().encode(root)
        var configuration = ServerConfiguration()
        configuration.channels = try ChannelSigner(keys: Array(Self.channelKeys.prefix(2)), roots: [.init(bytes: Array(bytes), document: root)])
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await server.withConnection { connection in
                let reply = try await connection.request(
                    "PUT",
                    "/v1/files/a.txt",
                    headers: [("Authorization", "Bearer \(InProcessServer.token)")],
                    body: Array("a\n".utf8)
                )
                #expect(reply.status == 201)
            }
            try await withTemporaryDirectory { folder in
                var client = DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: .init(trustedRoot: bytes))
                let synced = try await client.sync()
                #expect(synced.signature == .verified && synced.release?.root == 1)
                client.now = { wallClock + 2 * 86_400 }
                await #expect { try await client.sync() } throws: { "\($0)".contains("the root document (version 1) expired") }
            }
        }
    }
}
