import DepotFixtures
import DepotHTTP
import DepotManifest
import Testing

@testable import DepotClient

/// Which pack requests a sync makes, decided from the pages alone.
@Suite("Pack runs")
struct PackFetchTests {
    static func entry(_ path: String, size: Int64, gzip: Int64? = nil) -> ReleaseEntry {
        Fixture.entry(path, size: size, gzip: gzip.map { .init(size: $0, sha256: Fixture.digest(repeating: "b")) })
    }

    @Test("a pack lays out each small entry's whole download, gzip when smaller, nothing for large or empty ones")
    func members() {
        let page = ReleasePage(entries: [
            Self.entry("a", size: 100),
            Self.entry("empty", size: 0),
            Self.entry("b", size: 1_000, gzip: 300),
            Self.entry("big", size: 1 << 20, gzip: 200 << 10),
            Self.entry("c", size: 50, gzip: 70),
            Self.entry("empty too", size: 0),
        ])
        let members = page.packMembers
        #expect(members.map(\.entry.path) == ["a", "b", "c"])
        #expect(members.map(\.offset) == [0, 100, 400])
        #expect(members.map(\.length) == [100, 300, 50])
        #expect(members.map(\.isGzip) == [false, true, false])
    }

    @Test("runs are the consecutive wanted members of a page, two at least; a staged or unwanted member splits them")
    func runs() {
        let page = ReleasePage(entries: (0..<6).map { Self.entry("f\($0)", size: 10) })
        let cases: [(wanted: Set<String>, runs: [[String]])] = [
            (Set((0..<6).map { "f\($0)" }), [["f0", "f1", "f2", "f3", "f4", "f5"]]),
            // f2 staged by an earlier sync: never asked again.
            (["f0", "f1", "f3", "f4", "f5"], [["f0", "f1"], ["f3", "f4", "f5"]]),
            (["f0", "f2", "f4"], []),
            (["f4", "f5"], [["f4", "f5"]]),
            ([], []),
        ]
        for (wanted, expected) in cases {
            let runs = PackFetch.runs(pages: [("p", page)], wanted: wanted)
            #expect(runs.map { $0.members.map(\.entry.path) } == expected, "\(wanted.sorted())")
            #expect(runs.allSatisfy { $0.packLength == 60 })
            if let run = runs.last, expected.last == ["f3", "f4", "f5"] { #expect(run.range == 30...59) }
        }
    }

    @Test("a whole page takes its brotli pack only when its files decode to at most 4 MiB: memory follows that bound, not the page")
    func brotliPackBound() {
        // Each a whole download through memory (256 KiB, gzip under 64 KiB): 16 of them decode to
        // 4 MiB, 17 to more.
        for (count, takes) in [(16, true), (17, false)] {
            let page = ReleasePage(entries: (0..<count).map { Self.entry("f\($0)", size: 256 << 10, gzip: 60 << 10) })
            let runs = PackFetch.runs(pages: [("p", page)], wanted: Set(page.entries.map(\.path)))
            #expect(runs.count == 1 && runs[0].isWholePage && runs[0].contentsLength == Int64(count) << 18)
            #expect(runs[0].takesBrotliPack == (takes && ContentDecoders.decodable.contains(.br)), "\(count) files")
        }
    }

    @Test("a plan counts each packed file at its length in the pack, signed by its page: for a whole page, as the bound of its brotli pack")
    func planCountsSignedLengths() {
        let page = ReleasePage(entries: (0..<6).map { Self.entry("f\($0)", size: 1_000, gzip: 300) })
        // The file's own download would be its brotli variant, 200 bytes: a pack carries gzip.
        func files(_ paths: [String]) -> [UpdatePlan.File] {
            paths.map { UpdatePlan.File(path: $0, size: 1_000, way: .brotli, expectedBytes: 200, isBound: false) }
        }
        var whole = files(page.entries.map(\.path))
        UpdatePlan.pack(&whole, Set(page.entries.map(\.path)), pages: [("p", page)])
        #expect(whole.allSatisfy { $0.way == .packed && $0.expectedBytes == 300 && $0.isBound == ContentDecoders.decodable.contains(.br) })

        // f2 staged already: two runs of ranges, each file at its bytes, exactly.
        var parts = files(["f0", "f1", "f3", "f4", "f5"])
        UpdatePlan.pack(&parts, ["f0", "f1", "f3", "f4", "f5"], pages: [("p", page)])
        #expect(parts.allSatisfy { $0.way == .packed && $0.expectedBytes == 300 && !$0.isBound })

        // A file alone in its run is no pack's: its own download stays.
        var alone = files(["f0", "f2"])
        UpdatePlan.pack(&alone, ["f0", "f2"], pages: [("p", page)])
        #expect(alone == files(["f0", "f2"]))
    }

    /// (bytes, sizes) → shares: in proportion, the rest of the division to the first, summing to
    /// the bytes: one rule for a report and a plan.
    @Test(
        "a brotli pack's bytes are shared among its files by size",
        arguments: [
            (100, [10, 10, 20], [25, 25, 50]), (10, [1, 1, 1], [4, 3, 3]), (7, [0, 0], [7, 0]), (0, [5, 5], [0, 0]), (9, [], []),
        ] as [(Int64, [Int64], [Int64])]
    )
    func shares(bytes: Int64, sizes: [Int64], expected: [Int64]) {
        #expect(PackFetch.shares(of: bytes, sizes: sizes) == expected)
    }
}
