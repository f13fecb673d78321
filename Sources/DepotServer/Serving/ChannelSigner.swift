import Crypto
import DepotConnection
import DepotFiles
import DepotHTTP
import DepotManifest
import DepotSigning
import Foundation

/// Signs channel documents with the server's Ed25519 keys (`channels.signingKeyFile`,
/// `channels.signingKeyFiles`), under the newest root when there is one
/// (`channels.rootDirectory`), and says until when a document is valid.
///
/// The expiry is a function of the time, not of when a document was made: it steps every half
/// validity, to between one half and one whole validity ahead. With Ed25519's deterministic
/// signatures, a channel's document is then the same bytes, and the same ETag, across reloads and
/// restarts, and changes only when the channel moves or the expiry steps.
public struct ChannelSigner: Sendable {
    /// The keys that sign: under a root, those of its channel role.
    public let keys: [Curve25519.Signing.PrivateKey]
    /// The chain of roots, oldest first, each checked against the one before; empty without roots.
    public let roots: [Root]
    public let validity: Duration

    /// One root as it is served at `/roots/{version}.json`: its bytes, and what they say.
    public struct Root: Sendable {
        public let bytes: [UInt8]
        public let document: RootDocument

        public init(bytes: [UInt8], document: RootDocument) {
            self.bytes = bytes
            self.document = document
        }
    }

    /// A signer without roots: every key signs (none: documents are unsigned).
    public init(keys: [Curve25519.Signing.PrivateKey] = [], validity: Duration = .seconds(604_800)) {
        self.keys = Self.distinct(keys)
        self.roots = []
        self.validity = validity
    }

    /// A signer under the newest of `roots` (oldest first): the keys of its channel role sign.
    ///
    /// - Throws: ``ConfigurationError`` when the roots are not a chain, the newest has expired,
    ///   or the keys cannot meet its channel threshold.
    public init(keys: [Curve25519.Signing.PrivateKey], roots: [Root], validity: Duration = .seconds(604_800), now: HTTPDate = .now()) throws {
        self.validity = validity
        self.roots = roots
        let keys = Self.distinct(keys)
        guard !roots.isEmpty else {
            self.keys = keys
            return
        }
        let newest: RootDocument
        do {
            newest = try RootDocument.checkChain(roots.map(\.document))
        } catch {
            throw ConfigurationError("channels.rootDirectory: \(error.message)")
        }
        guard let expires = HTTPDate(parsing: newest.expires, now: now), expires > now else {
            throw ConfigurationError("root \(newest.version) expired (\(newest.expires)): sign a new one with depot root rotate")
        }
        self.keys = keys.filter { newest.channels.keyIDs.contains(Self.keyID(of: $0.publicKey)) }
        guard self.keys.count >= newest.channels.threshold else {
            throw ConfigurationError(
                "root \(newest.version) needs channel documents signed by \(newest.channels.threshold) of its channel keys; "
                    + "channels.signingKeyFile(s) hold \(self.keys.count) of them"
            )
        }
    }

    /// `keys` with each key once: a key file listed twice signs once, and counts once toward a
    /// threshold (clients count distinct keys, so two signatures of one key would fall short).
    static func distinct(_ keys: [Curve25519.Signing.PrivateKey]) -> [Curve25519.Signing.PrivateKey] {
        var seen = Set<String>()
        return keys.filter { seen.insert(keyID(of: $0.publicKey)).inserted }
    }

    /// The newest root, under which documents are signed.
    public var root: RootDocument? { roots.last?.document }

    /// The id clients see for a public key: the first 16 hex digits of its SHA-256.
    public static func keyID(of publicKey: Curve25519.Signing.PublicKey) -> String {
        Ed25519.keyID(of: publicKey)
    }

    /// The expiry of a document made at `now` (seconds since 1970).
    func expiry(now: Int64) -> Int64 {
        let half = max(1, validity.components.seconds / 2)
        return (now / half) * half + 2 * half
    }

    /// `document` under the newest root, signed by every key.
    func sign(_ document: ChannelDocument) throws -> ChannelDocument {
        var document = document
        document.root = root?.version
        let text = document.signedText
        document.signatures = try keys.map { try Ed25519.sign(text, with: $0) }
        return document
    }

    /// Reads a private key file written by `depot keygen` (``DepotSigning/SigningKeyFile``).
    public static func readKey(file: String) throws -> Curve25519.Signing.PrivateKey {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ConfigurationError("the key file \(file) cannot be read")
        }
        do {
            return try SigningKeyFile(contents: Array(text.utf8)).key
        } catch {
            throw ConfigurationError("the key file \(file) \(error.message)")
        }
    }

    /// Reads the roots of `folder`: `1.root.json`, `2.root.json`… from 1 on, with no gap. Each
    /// is read through the folder's descriptor: a link in it is refused, never followed.
    public static func readRoots(folder: String) throws -> [Root] {
        guard let roots = try? ContainedFolder(root: folder, creating: false), let names = try? roots.names(in: "") else {
            throw ConfigurationError("channels.rootDirectory \(folder) cannot be read")
        }
        let versions = names.compactMap { $0.hasSuffix(".root.json") ? Int64($0.dropLast(".root.json".count)) : nil }.sorted()
        guard !versions.isEmpty, versions == Array(1...Int64(versions.count)) else {
            throw ConfigurationError("channels.rootDirectory \(folder) must hold 1.root.json, 2.root.json… with no gap (depot root init)")
        }
        return try versions.map { version in
            let file = "\(folder)/\(version).root.json"
            guard let read = try? roots.read("\(version).root.json"), let document = try? JSONDecoder().decode(RootDocument.self, from: Data(read))
            else { throw ConfigurationError("\(file) is not a root document") }
            guard document.version == version else { throw ConfigurationError("\(file) holds root \(document.version)") }
            return Root(bytes: read, document: document)
        }
    }
}
