import Crypto
import Foundation

/// The file that holds an Ed25519 private key which signs channel documents: the raw 32 bytes
/// of the key in base64, and a newline. `depot keygen` writes ``contents``; the server
/// (`channels.signingKeyFile`) and `depot root` read it with ``init(contents:)``: one format,
/// written and read here only.
public struct SigningKeyFile: Sendable {
    public let key: Curve25519.Signing.PrivateKey

    public init(key: Curve25519.Signing.PrivateKey) {
        self.key = key
    }

    /// The file's bytes: the key's raw bytes in base64, then a newline.
    public var contents: [UInt8] { Array((key.rawRepresentation.base64EncodedString() + "\n").utf8) }

    /// The key of a file's `contents`; spaces and newlines around the base64 are allowed.
    ///
    /// - Throws: ``Problem``, whose message says what the file holds instead, to follow
    ///   "the key file {path} ".
    public init(contents: [UInt8]) throws(Problem) {
        guard let text = String(bytes: contents, encoding: .utf8) else { throw Problem("is not text: make one with depot keygen") }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw Problem("is empty: make one with depot keygen") }
        guard let raw = Data(base64Encoded: trimmed) else {
            throw Problem("does not hold one line of base64: make one with depot keygen")
        }
        guard raw.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw Problem("holds \(raw.count) bytes, not the 32 of an Ed25519 private key: make one with depot keygen")
        }
        self.key = key
    }

    /// Why a file's contents are not a signing key.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public let message: String
        public init(_ message: String) { self.message = message }
        public var description: String { message }
    }
}
