import Crypto
import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// Issue 56, item 9: a folder synced with a trusted key remembers it, and refuses a sync that
/// trusts nothing, or only other keys, unless told to replace its trust.
@Suite("A sync folder remembers its trust")
struct FolderTrustTests {
    static let other = Curve25519.Signing.PrivateKey()

    static func base64(_ key: Curve25519.Signing.PrivateKey) -> String { key.publicKey.rawRepresentation.base64EncodedString() }

    static func id(_ key: Curve25519.Signing.PrivateKey) -> String { ChannelCheck.keyID(of: key.publicKey) }

    @Test("the rule, as a table: adding trust or moving to a root passes; dropping it, or trusting other keys only, does not")
    func rule() {
        let a = FolderTrust(.keys([RolloutFleetTests.key.publicKey]))
        let b = FolderTrust(.keys([Self.other.publicKey]))
        let both = FolderTrust(.keys([RolloutFleetTests.key.publicKey, Self.other.publicKey]))
        let (none, root) = (FolderTrust(.none), FolderTrust(keys: nil, root: true))
        let rows: [(old: FolderTrust?, verified: Bool, new: FolderTrust, refused: Bool)] = [
            (nil, false, none, false), (nil, false, a, false), (none, true, none, false), (none, true, a, false), (a, true, a, false),
            (a, true, both, false), (both, true, b, false), (a, true, none, true), (a, true, b, true), (nil, true, none, true),
            (nil, true, b, false), (root, true, a, true), (root, true, none, true), (a, true, root, false),
        ]
        for (index, row) in rows.enumerated() {
            #expect((FolderTrust.refusal(old: row.old, verified: row.verified, new: row.new) != nil) == row.refused, "row \(index)")
        }
    }

    @Test("a folder synced with --trusted-key refuses a sync without it, or with another key only, naming the keys; --replace-trust lets it")
    func remembered() async throws {
        try await InProcessServer.with(configuration: RolloutFleetTests.configuration(TestClock())) { server in
            _ = try await RolloutFleetTests.publish(server, "one\n", minimum: nil)
            try await withTemporaryDirectory { folder in
                func client(_ keys: [Curve25519.Signing.PrivateKey], replacing: Bool = false) -> DepotClient {
                    var configuration = DepotClient.Configuration(trustedKeys: keys.map(Self.base64))
                    configuration.replacesTrust = replacing
                    return DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: configuration)
                }
                let key = RolloutFleetTests.key
                let first = try await client([key]).sync()
                #expect(first.signature == .verified)

                let unsigned = await #expect(throws: SyncError.self) { try await client([]).sync() }
                #expect(unsigned?.code == .untrusted, "\(unsigned?.message ?? "")")
                #expect(
                    unsigned?.message.contains("synced trusting key \(Self.id(key)); this sync trusts nothing") == true,
                    "\(unsigned?.message ?? "")"
                )
                await #expect(throws: SyncError.self) { try await client([]).check() }
                let stranger = await #expect(throws: SyncError.self) { try await client([Self.other]).sync() }
                #expect(stranger?.message.contains("this sync trusts key \(Self.id(Self.other)) only") == true, "\(stranger?.message ?? "")")

                // A state file that cannot be read forgets nothing silently: the trust is unknown,
                // so a sync trusting nothing is refused (found by the attack on issue 56).
                let state = folder.appendingPathComponent(".depot/state.json")
                let saved = try Data(contentsOf: state)
                try Data(#"{"trust":{"keys":"x"}}"#.utf8).write(to: state)
                let unreadable = await #expect(throws: SyncError.self) { try await client([]).sync() }
                #expect(unreadable?.code == .untrusted && unreadable?.message.contains("cannot be read") == true, "\(unreadable?.message ?? "")")
                try saved.write(to: state)

                // A new key beside the old one is no change of trust; then the old one can go.
                let added = try await client([key, Self.other]).sync()
                #expect(added.signature == .verified)
                // Told to: the folder's trust is dropped, and is none from then on.
                let replaced = try await client([], replacing: true).sync()
                let unchecked = try await client([]).sync()
                #expect(replaced.signature == .notChecked && unchecked.signature == .notChecked)
            }
        }
    }
}
