import Testing

@testable import DepotClient

/// How a block fetch splits its work: runs of missing blocks, and requests bounded in ranges
/// and bytes, as tables.
@Suite("Block fetch plans")
struct BlockFetchTests {
    @Test(
        "missing blocks become runs",
        arguments: [
            ([Int?](), [ClosedRange<Int>]()),
            ([0, 1, 2], []),
            ([nil, nil, 5, nil], [0...1, 3...3]),
            ([7, nil, nil, nil], [1...3]),
        ]
    )
    func runs(found: [Int?], expected: [ClosedRange<Int>]) {
        #expect(BlockFetch.missingRuns(found) == expected)
    }

    @Test("a long run is cut at block boundaries, each piece within the bound")
    func split() {
        // Blocks of 30 packed bytes each, from 0.
        let offsets = (0...10).map { Int64($0 * 30) }
        #expect(BlockFetch.split(0...9, offsets: offsets, maximumBytes: 100) == [0...2, 3...5, 6...8, 9...9])
        #expect(BlockFetch.split(2...3, offsets: offsets, maximumBytes: 100) == [2...3])
        #expect(BlockFetch.split(4...4, offsets: offsets, maximumBytes: 10) == [4...4], "one block, however long")
    }

    /// (why, range lengths, ranges a request, bytes a request) → the groups, as index ranges.
    @Test("ranges are grouped into requests bounded in ranges and bytes", arguments: Self.groupCases.indices)
    func groups(index: Int) {
        let (why, lengths, count, bytes, expected) = Self.groupCases[index]
        var ranges: [ClosedRange<Int64>] = []
        var offset: Int64 = 0
        for length in lengths {
            ranges.append(offset...offset + length - 1)
            offset += length + 10
        }
        #expect(BlockFetch.groups(ranges, rangesPerRequest: count, bytesPerRequest: bytes) == expected, "\(why)")
    }

    static let groupCases: [(String, [Int64], Int, Int64, [Range<Int>])] = [
        ("nothing to fetch", [], 3, 100, []),
        ("by count", [1, 1, 1, 1, 1, 1, 1], 3, 100, [0..<3, 3..<6, 6..<7]),
        ("by bytes", [40, 40, 40, 40], 10, 100, [0..<2, 2..<4]),
        ("a range longer than the bound goes alone", [10, 500, 10], 10, 100, [0..<1, 1..<2, 2..<3]),
        ("exactly at the bound", [50, 50, 1], 10, 100, [0..<2, 2..<3]),
    ]
}
