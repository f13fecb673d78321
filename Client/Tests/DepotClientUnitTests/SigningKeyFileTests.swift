import Crypto
import DepotSigning
import Foundation
import Testing

/// The signing key file as `depot keygen` writes it and the server reads it: a written file
/// reads back to its key, and each other file is refused with what it holds instead.
@Suite("Signing key file")
struct SigningKeyFileTests {
    @Test("a written file reads back to its key, with or without spaces and newlines around it")
    func roundTrip() throws {
        let key = Curve25519.Signing.PrivateKey()
        let file = SigningKeyFile(key: key)
        #expect(file.contents.last == UInt8(ascii: "\n"))
        #expect(file.contents.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") }, "one line")
        for contents in [file.contents, Array(file.contents.dropLast()), Array("  \r\n".utf8) + file.contents + Array("\n\n".utf8)] {
            #expect(try SigningKeyFile(contents: contents).key.rawRepresentation == key.rawRepresentation)
        }
    }

    static let refused: [(name: String, contents: [UInt8], message: String)] = [
        ("empty", [], "is empty: make one with depot keygen"),
        ("only a newline", Array("\n".utf8), "is empty: make one with depot keygen"),
        ("not text", [0xff, 0xfe, 0x41], "is not text: make one with depot keygen"),
        ("not base64", Array("not a key!\n".utf8), "does not hold one line of base64: make one with depot keygen"),
        (
            "two keys on two lines",
            Array((Data(count: 32).base64EncodedString() + "\n" + Data(count: 32).base64EncodedString() + "\n").utf8),
            "does not hold one line of base64: make one with depot keygen"
        ),
        ("a public key's PEM", Array("-----BEGIN PUBLIC KEY-----\n".utf8), "does not hold one line of base64: make one with depot keygen"),
        (
            "31 bytes", Array((Data(count: 31).base64EncodedString() + "\n").utf8),
            "holds 31 bytes, not the 32 of an Ed25519 private key: make one with depot keygen"
        ),
        (
            "64 bytes (a key and its public half)", Array((Data(count: 64).base64EncodedString() + "\n").utf8),
            "holds 64 bytes, not the 32 of an Ed25519 private key: make one with depot keygen"
        ),
    ]

    @Test("a file that is not a key is refused, saying what it holds", arguments: refused.indices)
    func refusal(index: Int) {
        let row = Self.refused[index]
        #expect(throws: SigningKeyFile.Problem(row.message), "\(row.name)") { try SigningKeyFile(contents: row.contents) }
    }
}
