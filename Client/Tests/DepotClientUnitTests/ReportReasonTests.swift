import DepotAPI
import Testing

/// A failed report's reason, cut to what the server takes: between characters, never inside one.
@Suite("Report reasons")
struct ReportReasonTests {
    static let limit = ReportBatch.Report.maximumReasonBytes

    /// (text, the bytes of the cut): the server refused the old cut of each non-ASCII case.
    static let cases: [(String, String, Int)] = [
        ("ascii, short", "disk full", 9),
        ("ascii, at the limit", String(repeating: "a", count: limit), limit),
        ("ascii, over the limit", String(repeating: "a", count: limit + 5), limit),
        ("é (2 bytes) across the limit", String(repeating: "a", count: limit - 1) + "é", limit - 1),
        ("€ (3 bytes) across the limit", String(repeating: "a", count: limit - 2) + "€", limit - 2),
        ("🙂 (4 bytes) across the limit", String(repeating: "a", count: limit - 3) + "🙂", limit - 3),
        ("a flag (two scalars, 8 bytes) across the limit", String(repeating: "a", count: limit - 4) + "🇫🇷", limit - 4),
        ("e and a combining accent across the limit", String(repeating: "a", count: limit - 1) + "e\u{301}", limit - 1),
        ("a localized message", String(repeating: "Échec de l’écriture ", count: 20), 200),
        ("empty", "", 0),
    ]

    @Test("cut between characters, within the limit, a prefix of the text", arguments: cases.indices)
    func cut(index: Int) {
        let (what, text, bytes) = Self.cases[index]
        let cut = ReportBatch.Report.reason(cutting: text)
        #expect(cut.utf8.count == bytes, "\(what)")
        #expect(cut.utf8.count <= Self.limit, "\(what)")
        #expect(text.hasPrefix(cut), "\(what)")
        #expect(!cut.unicodeScalars.contains("\u{FFFD}"), "\(what)")
    }
}
