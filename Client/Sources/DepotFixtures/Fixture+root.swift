import Crypto
import DepotManifest
import DepotSigning
import Foundation

extension Fixture {
    /// A root document: `rootKey` signs roots (threshold 1), `threshold` of `channelKeys` sign
    /// channel documents; signed by `signers` (default: `rootKey`).
    public static func root(
        version: Int64,
        expires: String,
        rootKey: Curve25519.Signing.PrivateKey,
        channelKeys: [Curve25519.Signing.PrivateKey],
        threshold: Int = 1,
        signers: [Curve25519.Signing.PrivateKey]? = nil
    ) -> RootDocument {
        let keys = ([rootKey] + channelKeys).map(\.publicKey)
        var root = RootDocument(
            version: version,
            expires: expires,
            keys: Dictionary(keys.map { (Ed25519.keyID(of: $0), $0.rawRepresentation.base64EncodedString()) }) { first, _ in first },
            root: .init(keyIDs: [Ed25519.keyID(of: rootKey.publicKey)], threshold: 1),
            channels: .init(keyIDs: channelKeys.map { Ed25519.keyID(of: $0.publicKey) }, threshold: threshold)
        )
        root.signatures = (signers ?? [rootKey]).map { try! Ed25519.sign(root.signedText, with: $0) }
        return root
    }
}
