import Testing

@testable import DepotHTTP

/// RFC 3229 (delta encoding in HTTP): when a request may get a `226 IM Used`, and from which
/// bases. Current representation `"new"`, its gzip variant `"new-gz"`.
@Suite("Delta selection (RFC 3229)")
struct DeltaSelectionTests {
    static let current = EntityTag(opaqueTag: "new")!
    static let gzipVariant = EntityTag(opaqueTag: "new-gz")!

    static func tag(_ text: String, weak: Bool = false) -> EntityTag { EntityTag(opaqueTag: text, isWeak: weak)! }

    /// (why, method, request fields) → selection.
    static let cases: [(String, ConditionalRequest.Method, [DeltaSelection.FieldName: [String]], DeltaSelection)] = [
        // §10.5.3: A-IM names the acceptable instance-manipulations; §3: If-None-Match the held instances.
        ("§3: vcdiff accepted, one held instance", .get, [.aIM: ["vcdiff"], .ifNoneMatch: ["\"old\""]], .delta(bases: [tag("old")], gzip: false)),
        ("§10.5.2: gzip after vcdiff", .get, [.aIM: ["vcdiff, gzip"], .ifNoneMatch: ["\"old\""]], .delta(bases: [tag("old")], gzip: true)),
        (
            "§10.5.3: qvalues; q=0 excludes gzip", .get, [.aIM: ["vcdiff;q=1.0, gzip;q=0"], .ifNoneMatch: ["\"old\""]],
            .delta(bases: [tag("old")], gzip: false)
        ),
        ("§10.5.3: q=0 excludes vcdiff", .get, [.aIM: ["vcdiff;q=0"], .ifNoneMatch: ["\"old\""]], .none),
        ("§10.5.3: no acceptable manipulation", .get, [.aIM: ["diffe"], .ifNoneMatch: ["\"old\""]], .none),
        ("no A-IM: RFC 9110 only", .get, [.ifNoneMatch: ["\"old\""]], .none),
        (
            "§3: several held instances, in order, over several lines", .get, [.aIM: ["vcdiff"], .ifNoneMatch: ["\"a\"", "\"b\", \"c\""]],
            .delta(bases: [tag("a"), tag("b"), tag("c")], gzip: false)
        ),
        ("a weak tag names no exact bytes", .get, [.aIM: ["vcdiff"], .ifNoneMatch: ["W/\"a\", \"b\""]], .delta(bases: [tag("b")], gzip: false)),
        ("only weak tags", .get, [.aIM: ["vcdiff"], .ifNoneMatch: ["W/\"a\""]], .none),
        ("RFC 9110 §13.1.2: the current instance held is a 304", .get, [.aIM: ["vcdiff"], .ifNoneMatch: ["\"old\", \"new\""]], .none),
        ("the gzip variant held is a 304 too", .get, [.aIM: ["vcdiff"], .ifNoneMatch: ["\"new-gz\""]], .none),
        ("a weak tag of the current is a 304 (weak comparison)", .get, [.aIM: ["vcdiff"], .ifNoneMatch: ["W/\"new\""]], .none),
        ("If-None-Match: * names no base", .get, [.aIM: ["vcdiff"], .ifNoneMatch: ["*"]], .none),
        ("no If-None-Match: no base", .get, [.aIM: ["vcdiff"]], .none),
        ("with If-Match: answered as without A-IM", .get, [.aIM: ["vcdiff"], .ifNoneMatch: ["\"old\""], .ifMatch: ["\"new\""]], .none),
        (
            "with If-Unmodified-Since", .get, [.aIM: ["vcdiff"], .ifNoneMatch: ["\"old\""], .ifUnmodifiedSince: ["Sun, 06 Nov 1994 08:49:37 GMT"]],
            .none
        ),
        ("with Range", .get, [.aIM: ["vcdiff"], .ifNoneMatch: ["\"old\""], .range: ["bytes=0-9"]], .none),
        ("with If-Range", .get, [.aIM: ["vcdiff"], .ifNoneMatch: ["\"old\""], .ifRange: ["\"old\""]], .none),
        ("HEAD: the fields of the GET", .head, [.aIM: ["vcdiff"], .ifNoneMatch: ["\"old\""]], .delta(bases: [tag("old")], gzip: false)),
        ("§10.4.1: 226 is for GET (and its HEAD) only", .other, [.aIM: ["vcdiff"], .ifNoneMatch: ["\"old\""]], .none),
    ]

    @Test("each request gets the selection RFC 3229 allows", arguments: cases.indices)
    func selection(index: Int) {
        let (why, method, fields, expected) = Self.cases[index]
        let selection = DeltaSelection.select(method: method, current: Self.current, variants: [Self.gzipVariant]) { fields[$0] ?? [] }
        #expect(selection == expected, "\(why)")
    }

    @Test("at most maximumBases strong tags are bases, the first listed; a 304 is found among all of them")
    func boundedBases() {
        let many = (0..<1_100).map { "\"t\($0)\"" }.joined(separator: ", ")
        let fields: [DeltaSelection.FieldName: [String]] = [.aIM: ["vcdiff"], .ifNoneMatch: ["W/\"w\", " + many]]
        let selection = DeltaSelection.select(method: .get, current: Self.current, maximumBases: 3) { fields[$0] ?? [] }
        #expect(selection == .delta(bases: [Self.tag("t0"), Self.tag("t1"), Self.tag("t2")], gzip: false))
        let withCurrent: [DeltaSelection.FieldName: [String]] = [.aIM: ["vcdiff"], .ifNoneMatch: [many + ", \"new\""]]
        #expect(DeltaSelection.select(method: .get, current: Self.current, maximumBases: 3) { withCurrent[$0] ?? [] } == .none)
    }

    @Test("the IM field of the 226 (§10.5.2)")
    func instanceManipulation() {
        #expect(DeltaSelection.instanceManipulation(gzip: false) == "vcdiff")
        #expect(DeltaSelection.instanceManipulation(gzip: true) == "vcdiff, gzip")
    }
}
