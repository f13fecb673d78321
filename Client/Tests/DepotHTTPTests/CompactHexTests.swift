import DepotManifest
import Foundation
import Testing

/// Digests held as bytes (``CompactHex``) read back as the text they came as, and entries that
/// keep them code to the JSON they were read from.
@Suite("Digests as bytes")
struct CompactHexTests {
    static let cases: [(String, String)] = [
        ("a SHA-256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("an MD5", "d41d8cd98f00b204e9800998ecf8427e"),
        ("all zeros and all f", String(repeating: "0", count: 32) + String(repeating: "f", count: 32)),
        ("upper-case hex, kept as text", "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"),
        ("63 digits, kept as text", String(repeating: "a", count: 63)),
        ("not hex, kept as text", "../../../etc/passwd"),
        ("empty", ""),
    ]

    @Test("text reads back as it came, and equal text is an equal value", arguments: cases)
    func roundTrip(_ name: String, text: String) {
        #expect(CompactHex(text).text == text, "\(name)")
        #expect(CompactHex(text) == CompactHex(String(text)), "\(name)")
        #expect(CompactHex(text) != CompactHex(text + "0"), "\(name)")
    }

    @Test("a page codes to the JSON it was read from, byte for byte, and its entries compare by value")
    func pageJSON() throws {
        let json = #"""
            {"entries":[{"blocks":{"sha256":"\#(String(repeating: "b", count: 64))","size":12},"contentType":"application/octet-stream","gzip":{"sha256":"\#(String(repeating: "c", count: 64))","size":40},"lastModified":"Tue, 14 Nov 2023 22:13:20 GMT","md5":"\#(String(repeating: "d", count: 32))","patches":[{"from":"\#(String(repeating: "e", count: 64))","sha256":"\#(String(repeating: "f", count: 64))","size":9}],"path":"a/b.bin","sha256":"\#(String(repeating: "a", count: 64))","size":100,"version":3},{"contentType":"application/octet-stream","lastModified":"Tue, 14 Nov 2023 22:13:20 GMT","md5":"NOT-HEX","path":"c","sha256":"short","size":0,"version":1}]}
            """#
        let page = try JSONDecoder().decode(ReleasePage.self, from: Data(json.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(String(decoding: try encoder.encode(page), as: UTF8.self) == json)
        #expect(page.entries[1].problem?.contains("is not 64 lower-case hex digits") == true, "text that is no digest is still told")
        var copy = page.entries[0]
        #expect(copy == page.entries[0] && copy.hashValue == page.entries[0].hashValue)
        copy.sha256 = String(repeating: "9", count: 64)
        #expect(copy != page.entries[0] && page.entries[0].sha256 == String(repeating: "a", count: 64), "a copy changes alone")
    }
}
