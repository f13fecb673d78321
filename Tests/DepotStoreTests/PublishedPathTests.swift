import DepotStore
import Testing

/// The one rule for a published path, which the publisher's API and `depot import` both ask.
@Suite("Published paths")
struct PublishedPathTests {
    @Test(
        "each path: accepted, or refused with its reason",
        arguments: [
            ("db/catalog.sqlite", nil),
            ("a.txt", nil),
            ("../../etc/evil", "has a . or .. segment"),
            ("sub/./x", "has a . or .. segment"),
            ("/abs/x", "empty segment"),
            ("a//b", "empty segment"),
            ("", "must name a file"),
            ("x/", "must name a file"),
            ("line\nbreak", "control character"),
            ("back\\slash", "control character, a backslash"),
            ("e\u{301}.txt", "not in Unicode NFC"),
            (String(repeating: "a", count: 5000), "longer than 4096 bytes"),
            (".depot/x", "cannot be written by every client"),
        ] as [(String, String?)]
    )
    func rule(path: String, refusal: String?) {
        let problem = PublishedPath.problem(path, maxLength: 4096)
        if let refusal {
            #expect(problem?.contains(refusal) == true, "\(path.debugDescription): \(problem ?? "accepted")")
        } else {
            #expect(problem == nil, "\(path): \(problem ?? "")")
        }
    }

    @Test("a publish takes a path not in NFC as its NFC form; an import refuses it")
    func normalizing() {
        #expect(PublishedPath.problem("e\u{301}.txt", maxLength: 4096, normalizing: true) == nil)
        #expect(PublishedPath.problem("e\u{301}.txt", maxLength: 4096) != nil)
    }
}
