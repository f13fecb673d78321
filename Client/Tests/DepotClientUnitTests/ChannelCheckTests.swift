import Crypto
import DepotClient
import DepotFixtures
import DepotManifest
import Foundation
import Testing

/// The rules a client applies to a channel document before it follows it, as a table: each row
/// is a document as a server, a stale cache or an attacker could serve it.
@Suite("Channel document checks")
struct ChannelCheckTests {
    static let key = Curve25519.Signing.PrivateKey()
    static let rotated = Curve25519.Signing.PrivateKey()
    static let stranger = Curve25519.Signing.PrivateKey()
    static let releaseA = String(repeating: "a", count: 64)
    static let releaseB = String(repeating: "b", count: 64)
    /// 2026-11-23 12:00:00 UTC.
    static let now: Int64 = 1_795_435_200

    static func document(
        release: String = releaseA,
        serial: Int64 = 10,
        expires: String = "Mon, 30 Nov 2026 12:00:00 GMT",
        signedBy keys: [Curve25519.Signing.PrivateKey] = [key],
        rollout percent: Int? = nil,
        fallback: String? = nil,
        tamper: ((inout ChannelDocument) -> Void)? = nil
    ) -> ChannelDocument {
        var document = Fixture.channelDocument(
            release: release,
            number: 3,
            serial: serial,
            expires: expires,
            minimumClientVersion: fallback.map { _ in "2.0" },
            rollout: percent.map { .init(release: releaseB, number: 4, percent: $0, salt: "5a17") },
            fallbacks: fallback.map { [.init(release: $0, number: 2, minimumClientVersion: nil)] },
            signedBy: keys
        )
        tamper?(&document)
        return document
    }

    static func keyID(_ key: Curve25519.Signing.PrivateKey) -> String {
        ChannelDocument.keyID(ofRawKey: Array(key.publicKey.rawRepresentation)) { Array(SHA256.hash(data: $0)) }
    }

    enum Expected: Equatable {
        case verified, notChecked
        case refused(String)
        /// Malformed, whatever the trust.
        case corrupt(String)
    }

    static let cases:
        [(name: String, document: ChannelDocument, trusted: [Curve25519.Signing.PublicKey], last: ChannelCheck.Accepted?, expected: Expected)] = [
            ("signed by the trusted key", document(), [key.publicKey], nil, .verified),
            (
                "signed by the second of two trusted keys (rotation)", document(signedBy: [rotated]), [key.publicKey, rotated.publicKey], nil,
                .verified
            ),
            ("signed by a stranger too: one trusted signature suffices", document(signedBy: [stranger, key]), [key.publicKey], nil, .verified),
            ("unsigned", document(signedBy: []), [key.publicKey], nil, .refused("not signed by a trusted key")),
            ("signed by a stranger only", document(signedBy: [stranger]), [key.publicKey], nil, .refused("not signed by a trusted key")),
            (
                "release changed after signing",
                document {
                    $0.release = releaseB
                    $0.url = "/releases/\(releaseB)"
                }, [key.publicKey], nil, .refused("not signed by a trusted key")
            ),
            ("serial raised after signing", document { $0.serial = 99 }, [key.publicKey], nil, .refused("not signed by a trusted key")),
            (
                "expiry pushed after signing", document { $0.expires = "Fri, 01 Jan 2100 00:00:00 GMT" }, [key.publicKey], nil,
                .refused("not signed by a trusted key")
            ),
            ("expired", document(expires: "Sun, 22 Nov 2026 12:00:00 GMT"), [key.publicKey], nil, .refused("expired")),
            ("an unreadable expiry", document(expires: "soon"), [key.publicKey], nil, .refused("expired")),
            (
                "a lower serial than accepted: a replay", document(serial: 9), [key.publicKey], .init(serial: 10, release: releaseA),
                .refused("lower than the 10")
            ),
            (
                "a lower serial than one a key still trusted signed: a replay", document(serial: 9, signedBy: [rotated]),
                [key.publicKey, rotated.publicKey], .init(serial: 25, release: releaseA, signers: [keyID(stranger), keyID(key)]),
                .refused("lower than the 25")
            ),
            (
                "a lower serial than one only a key no longer trusted signed (a leaked key): the serials start afresh",
                document(serial: 2, signedBy: [rotated]), [rotated.publicKey], .init(serial: 25, release: releaseA, signers: [keyID(key)]),
                .verified
            ),
            (
                "a lower serial, the earlier document's signers not known (a folder synced before they were kept): a replay",
                document(serial: 2, signedBy: [rotated]), [rotated.publicKey], .init(serial: 25, release: releaseA), .refused("lower than the 25")
            ),
            (
                "the same serial naming another release", document(release: releaseB), [key.publicKey], .init(serial: 10, release: releaseA),
                .refused("another release")
            ),
            ("the same serial and release (re-signed)", document(), [key.publicKey], .init(serial: 10, release: releaseA), .verified),
            ("a higher serial", document(release: releaseB, serial: 11), [key.publicKey], .init(serial: 10, release: releaseA), .verified),
            ("no trusted key: not checked", document(signedBy: []), [], .init(serial: 99, release: releaseB), .notChecked),
            ("a signed rollout", document(rollout: 10), [key.publicKey], nil, .verified),
            (
                "a rollout's percentage raised after signing", document(rollout: 10) { $0.rollout?.percent = 100 }, [key.publicKey], nil,
                .refused("not signed by a trusted key")
            ),
            (
                "a rollout's salt changed after signing", document(rollout: 10) { $0.rollout?.salt = "0" }, [key.publicKey], nil,
                .refused("not signed by a trusted key")
            ),
            (
                "a rollout stripped after signing", document(rollout: 10) { $0.rollout = nil }, [key.publicKey], nil,
                .refused("not signed by a trusted key")
            ),
            (
                "a rollout added after signing", document { $0.rollout = .init(release: releaseB, number: 4, percent: 100, salt: "1") },
                [key.publicKey], nil, .refused("not signed by a trusted key")
            ),
            (
                "a rollout of the base release",
                document(rollout: 10) {
                    $0.rollout?.release = releaseA
                    $0.rollout?.url = "/releases/\(releaseA)"
                }, [], nil, .corrupt("rollout names no valid release")
            ),
            ("a rollout over 100%", document(rollout: 101), [], nil, .corrupt("outside 0–100")),
            (
                "the same serial, the install on the rollout's release", document(rollout: 10), [key.publicKey], .init(serial: 10, release: releaseB),
                .verified
            ),
            (
                "the same serial, the install on a fallback", document(release: releaseB, fallback: releaseA), [key.publicKey],
                .init(serial: 10, release: releaseA), .verified
            ),
            (
                "a fallback added after signing",
                document(release: releaseB) { $0.fallbacks = [.init(release: releaseA, number: 2, minimumClientVersion: nil)] },
                [key.publicKey], nil, .refused("not signed by a trusted key")
            ),
        ]

    @Test("each document is verified, or refused with its reason", arguments: 0..<cases.count)
    func table(index: Int) {
        let row = Self.cases[index]
        let outcome: Expected
        do {
            switch try ChannelCheck.check(row.document, channel: "stable", trustedKeys: row.trusted, now: Self.now, lastAccepted: row.last) {
            case .verified: outcome = .verified
            case .notChecked: outcome = .notChecked
            }
        } catch {
            #expect(error.code == .untrusted || error.code == .corrupt, "\(row.name)")
            outcome = error.code == .corrupt ? .corrupt(error.message) : .refused(error.message)
        }
        switch (row.expected, outcome) {
        case (.refused(let reason), .refused(let message)), (.corrupt(let reason), .corrupt(let message)):
            #expect(message.contains(reason), "\(row.name): \(message)")
        default: #expect(outcome == row.expected, "\(row.name)")
        }
    }

    @Test("a document for another channel, or naming no valid release, is malformed whatever the keys")
    func malformed() {
        let cases = [
            Self.document { $0.channel = "beta" },
            Self.document { $0.release = "../x" },
            Self.document { $0.url = "https://elsewhere.example/releases/\(Self.releaseA)" },
        ]
        for document in cases {
            #expect(throws: SyncError.self) {
                try ChannelCheck.check(document, channel: "stable", trustedKeys: [], now: Self.now, lastAccepted: nil)
            }
        }
    }

    @Test("a refusal names, by id, the keys that signed the document and the keys trusted")
    func refusalNamesKeys() {
        let error = #expect(throws: SyncError.self) {
            try ChannelCheck.check(
                Self.document(signedBy: [Self.stranger]),
                channel: "stable",
                trustedKeys: [Self.key.publicKey, Self.rotated.publicKey],
                now: Self.now,
                lastAccepted: nil
            )
        }
        let message = error?.message ?? ""
        #expect(message.contains("signed by key \(Self.keyID(Self.stranger))"), "\(message)")
        #expect(message.contains("trusted: \(Self.keyID(Self.key)), \(Self.keyID(Self.rotated))"), "\(message)")
        let unsigned = #expect(throws: SyncError.self) {
            try ChannelCheck.check(
                Self.document(signedBy: []),
                channel: "stable",
                trustedKeys: [Self.key.publicKey],
                now: Self.now,
                lastAccepted: nil
            )
        }
        #expect(unsigned?.message.contains("it carries no signature; trusted: \(Self.keyID(Self.key))") == true, "\(unsigned?.message ?? "")")
    }
}
