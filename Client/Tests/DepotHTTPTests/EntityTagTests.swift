import Testing

@testable import DepotHTTP

/// RFC 9110 §8.8.3 (entity-tag syntax and comparison), §13.1.1 and §13.1.2 (tag lists).
@Suite("Entity tags (RFC 9110 §8.8.3)")
struct EntityTagTests {
    @Test(
        "parses one tag",
        arguments: [
            ("\"xyzzy\"", "xyzzy", false),
            ("W/\"xyzzy\"", "xyzzy", true),
            ("\"\"", "", false),
            ("  \"a-b_c\"  ", "a-b_c", false),
            ("\"caf\u{e9}\"", "caf\u{e9}", false),  // obs-text is allowed
        ]
    )
    func parsesValid(text: String, opaque: String, isWeak: Bool) throws {
        let tag = try #require(EntityTag(text))
        #expect(tag.opaqueTag == opaque)
        #expect(tag.isWeak == isWeak)
        #expect(EntityTag(tag.description) == tag)
    }

    @Test("rejects malformed tags", arguments: ["xyzzy", "\"xyzzy", "w/\"x\"", "W/x", "\"a b\"", "\"a\"b\"", "\"x\" junk", ""])
    func rejectsInvalid(text: String) {
        #expect(EntityTag(text) == nil)
    }

    /// The comparison table of §8.8.3.2.
    @Test(
        "strong and weak comparison (§8.8.3.2)",
        arguments: [
            ("W/\"1\"", "W/\"1\"", false, true),
            ("W/\"1\"", "W/\"2\"", false, false),
            ("W/\"1\"", "\"1\"", false, true),
            ("\"1\"", "\"1\"", true, true),
        ]
    )
    func comparison(left: String, right: String, strong: Bool, weak: Bool) throws {
        let a = try #require(EntityTag(left))
        let b = try #require(EntityTag(right))
        #expect(a.matchesStrongly(b) == strong)
        #expect(a.matchesWeakly(b) == weak)
    }

    @Test(
        "parses lists over several field lines (§5.6.1, §13.1.1)",
        arguments: [
            (["\"a\", \"b\""], EntityTagCondition.tags([tag("a"), tag("b")])),
            (["\"a\"", "W/\"b\""], .tags([tag("a"), tag("b", weak: true)])),
            ([",, \"a\" ,,"], .tags([tag("a")])),
            (["*"], .any),
            (["\"a\", *"], .any),
            (["\"a\", bogus, \"b\""], .tags([tag("a")])),
            ([""], .tags([])),
        ]
    )
    func parsesLists(lines: [String], expected: EntityTagCondition) {
        #expect(EntityTagCondition(fieldLines: lines) == expected)
    }

    @Test("an absent field is not a condition")
    func absentField() {
        #expect(EntityTagCondition(fieldLines: []) == nil)
    }

    @Test("If-Match uses strong, If-None-Match weak comparison")
    func listMatching() {
        let current = tag("v1")
        let list = EntityTagCondition.tags([tag("v0"), tag("v1", weak: true)])
        #expect(!list.matchesStrongly(current))
        #expect(list.matchesWeakly(current))
        #expect(EntityTagCondition.any.matchesStrongly(current))
        #expect(EntityTagCondition.any.matchesWeakly(current))
    }
}

func tag(_ opaque: String, weak: Bool = false) -> EntityTag {
    EntityTag(opaqueTag: opaque, isWeak: weak)!
}
