import Crypto
import DepotManifest
import Foundation
import Testing

/// What a signature covers: exactly the fields of the document (``SignedText``), and the same
/// bytes as before that rule for every document signed before it.
@Suite("Signed text")
struct SignedTextTests {
    // MARK: - Documents signed before the rule

    /// Made outside Swift (Python's `cryptography`, from the rule as it was: one `keyword value`
    /// line a field), with fixed keys: a root, a `depot-channel-v3` document under it with a
    /// rollout and fallbacks, and a `depot-channel-v1` document.
    static let signedRoot = #"""
        {"channels": {"keyIDs": ["24f6ed6acbfe1009"], "threshold": 1}, "expires": "Fri, 01 Jan 2100 00:00:00 GMT", "format": 1, "keys": {"24f6ed6acbfe1009": "Kay64UG8yvCyLhqU000LxzYeUm0L/hLIl5S8kyKWbdc=", "56475aa75463474c": "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg="}, "root": {"keyIDs": ["56475aa75463474c"], "threshold": 1}, "signatures": [{"keyID": "56475aa75463474c", "signature": "LvmXwqZIIOgbXTg1QoNi39Rt9B27s+1Iyr0W+6VXYd5sG/fwbcuN5TlmLoOzl+jGwtAZCPFxJ+/NiXZ04d5FBQ=="}], "version": 1}
        """#
    static let signedChannel = #"""
        {"channel": "stable", "critical": true, "expires": "Fri, 01 Jan 2100 00:00:00 GMT", "fallbacks": [{"minimumClientVersion": "1.0", "number": 5, "release": "243b1dcadc95bfb06581495db3740c5957c445b2d5c3a36d827a2a3457c1a668", "url": "/releases/243b1dcadc95bfb06581495db3740c5957c445b2d5c3a36d827a2a3457c1a668"}, {"number": 3, "release": "7106051e32f17b88844843d24b9cb36d4c5fd98e4b7bf806c9b8208de3b386bb", "url": "/releases/7106051e32f17b88844843d24b9cb36d4c5fd98e4b7bf806c9b8208de3b386bb"}], "minimumClientVersion": "2.1", "number": 7, "release": "a4d451ec23463726f72c43d64c710968f6b602cd653b4de8adee1b556240a829", "rollout": {"critical": false, "minimumClientVersion": "2.2", "number": 8, "percent": 25, "release": "a4fa034cc780dbd72a36bf51ba5ee7afd509020953aae10021794638543fd997", "salt": "9f3a", "url": "/releases/a4fa034cc780dbd72a36bf51ba5ee7afd509020953aae10021794638543fd997"}, "root": 1, "serial": 42, "signatures": [{"keyID": "24f6ed6acbfe1009", "signature": "sQksqrqMd3GbmQJ176d+U3XQcjbs+EJh4Qjswa4YTdVzCii8Hn2kLQ1nEkcDt7gQd7sU3hr2JgurxC4RcMgzAQ=="}], "url": "/releases/a4d451ec23463726f72c43d64c710968f6b602cd653b4de8adee1b556240a829"}
        """#
    static let signedV1 = #"""
        {"channel": "stable", "expires": "Fri, 01 Jan 2100 00:00:00 GMT", "number": 7, "release": "a4d451ec23463726f72c43d64c710968f6b602cd653b4de8adee1b556240a829", "serial": 3, "signatures": [{"keyID": "24f6ed6acbfe1009", "signature": "Wmve/5EWCNG3pYGETxXD1Z6jFi0X5fF8RTiJi7zJlTqx49RtADidXgTwv7aC5/ZXKKVfsey60Pip5jZe2qpWCQ=="}], "url": "/releases/a4d451ec23463726f72c43d64c710968f6b602cd653b4de8adee1b556240a829"}
        """#
    static let channelKey = "Kay64UG8yvCyLhqU000LxzYeUm0L/hLIl5S8kyKWbdc="

    static func verify(_ key: String, _ signature: String, _ message: [UInt8]) -> Bool {
        guard let raw = Data(base64Encoded: key), let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw),
            let signature = Data(base64Encoded: signature)
        else { return false }
        return key.isValidSignature(signature, for: Data(message))
    }

    static func keyID(_ key: String) -> String? {
        guard let raw = Data(base64Encoded: key), raw.count == 32 else { return nil }
        return ChannelDocument.keyID(ofRawKey: Array(raw)) { Array(SHA256.hash(data: $0)) }
    }

    @Test("a root and channel documents signed in the format before the rule verify as they are")
    func signedBefore() throws {
        let root = try JSONDecoder().decode(RootDocument.self, from: Data(Self.signedRoot.utf8))
        try root.checkFirst(verify: Self.verify, keyID: Self.keyID)
        let document = try JSONDecoder().decode(ChannelDocument.self, from: Data(Self.signedChannel.utf8))
        try root.checkChannelSignatures(document, verify: Self.verify)
        let v1 = try JSONDecoder().decode(ChannelDocument.self, from: Data(Self.signedV1.utf8))
        #expect(Self.verify(Self.channelKey, try #require(v1.signatures.first).signature, v1.signedText))
    }

    @Test("the salt attack: a line moved into the rollout's salt no longer signs as that line")
    func saltAttack() throws {
        var honest = try JSONDecoder().decode(ChannelDocument.self, from: Data(Self.signedChannel.utf8))
        let signature = try #require(honest.signatures.first).signature
        honest.rollout?.minimumClientVersion = nil
        honest.rollout?.critical = nil
        var forged = honest
        // The mirror's edit: the minimum moved into the salt, the field dropped.
        honest.rollout?.minimumClientVersion = "3.0"
        forged.rollout?.salt = "9f3a\nrollout-minimum-client-version 3.0"
        #expect(honest.signedText != forged.signedText)
        #expect(!Self.verify(Self.channelKey, signature, forged.signedText))
    }

    // MARK: - The property

    /// SplitMix64: the same documents on every run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A short value from the characters that could end a line or a value, and a few others:
    /// small enough that random documents collide in every way a text could.
    static func value(_ generator: inout Generator) -> String {
        let alphabet = ["a", "0", "-", " ", "\n", "\\", "n", "s"]
        return (0..<Int.random(in: 0...4, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
    }

    static func optionalValue(_ generator: inout Generator) -> String? {
        Bool.random(using: &generator) ? nil : value(&generator)
    }

    static func document(_ generator: inout Generator) -> ChannelDocument {
        var document = ChannelDocument(channel: "", release: "", number: 0, serial: 0, expires: "")
        document.channel = value(&generator)
        document.release = value(&generator)
        document.url = value(&generator)
        document.expires = value(&generator)
        document.number = Int64.random(in: 0...2, using: &generator)
        document.root = Bool.random(using: &generator) ? nil : Int64.random(in: 0...2, using: &generator)
        document.critical = [nil, true, false].randomElement(using: &generator)!
        document.minimumClientVersion = optionalValue(&generator)
        if Bool.random(using: &generator) {
            var rollout = ChannelDocument.Rollout(release: value(&generator), number: 1, percent: 1, salt: value(&generator))
            rollout.url = value(&generator)
            rollout.minimumClientVersion = optionalValue(&generator)
            rollout.critical = [nil, true, false].randomElement(using: &generator)!
            document.rollout = rollout
        }
        if Bool.random(using: &generator) {
            document.fallbacks = (0..<Int.random(in: 0...2, using: &generator)).map { _ in
                var fallback = ChannelDocument.Fallback(release: value(&generator), number: 1, minimumClientVersion: optionalValue(&generator))
                fallback.url = value(&generator)
                return fallback
            }
        }
        return document
    }

    /// The document's text fields, to move bytes between.
    static var fields: [WritableKeyPath<ChannelDocument, String>] { [\.channel, \.release, \.url, \.expires] }

    @Test("no two different documents sign the same text: 50,000 random ones, and each with bytes moved from one field into another")
    func injective() {
        var generator = Generator(state: 2026)
        var seen: [[UInt8]: ChannelDocument] = [:]
        var collisions: [(ChannelDocument, ChannelDocument)] = []
        func record(_ document: ChannelDocument) {
            let text = document.signedText
            if let earlier = seen[text], earlier != document { collisions.append((earlier, document)) } else { seen[text] = document }
        }
        for _ in 0..<50_000 {
            let document = Self.document(&generator)
            record(document)
            // Bytes moved from the end of one field to the start of another, the salt and the
            // minimums among them.
            var moved = document
            let from = Self.fields.randomElement(using: &generator)!
            let to = Self.fields.randomElement(using: &generator)!
            let cut = moved[keyPath: from].suffix(Int.random(in: 0...2, using: &generator))
            moved[keyPath: from].removeLast(cut.count)
            moved[keyPath: to] = cut + moved[keyPath: to]
            if var rollout = moved.rollout {
                let salted = rollout.salt + "\nrollout-minimum-client-version " + (rollout.minimumClientVersion ?? "1")
                rollout.minimumClientVersion = nil
                rollout.salt = salted
                moved.rollout = rollout
            }
            record(moved)
        }
        #expect(collisions.isEmpty, "\(collisions.count) collisions, first: \(String(describing: collisions.first))")
        #expect(seen.count > 40_000, "the generator makes varied documents")
    }
}
