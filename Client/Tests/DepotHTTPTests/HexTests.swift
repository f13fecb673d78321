import Testing

@testable import DepotHTTP

@Suite("Hex")
struct HexTests {
    @Test("encodes lower-case and decodes either case", arguments: [([UInt8](), ""), ([0x00, 0x0f, 0xa5, 0xff], "000fa5ff")])
    func roundTrip(bytes: [UInt8], text: String) {
        #expect(Hex.string(bytes) == text)
        #expect(Hex.bytes(text) == bytes)
        #expect(Hex.bytes(text.uppercased()) == bytes)
    }

    @Test("refuses odd lengths and non-digits", arguments: ["0", "0g", "zz"])
    func invalid(text: String) {
        #expect(Hex.bytes(text) == nil)
    }
}
