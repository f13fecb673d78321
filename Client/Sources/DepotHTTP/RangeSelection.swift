/// Limits that protect the server from hostile `Range` fields (Apache CVE-2011-3192).
public struct RangeLimits: Hashable, Sendable {
    /// The most range specs one request may carry; a request with more is answered with the
    /// whole representation (200), as Apache's `MaxRanges` does.
    public var maxRanges: Int

    public init(maxRanges: Int = 200) {
        self.maxRanges = maxRanges
    }
}

/// What a server does with a `Range` field, once preconditions have passed (RFC 9110 §14.2).
public enum RangeSelection: Hashable, Sendable {
    /// Ignore the field and send the whole representation.
    case full
    /// No range is satisfiable: 416 with `Content-Range: bytes */length`.
    case unsatisfiable
    /// Send these byte positions: one range as a plain 206, several as `multipart/byteranges`.
    /// Overlapping and adjacent ranges are already coalesced.
    case ranges([ClosedRange<Int64>])

    /// Chooses what to send for `rangeSet` against a representation of `length` bytes.
    ///
    /// - Unsatisfiable specs are dropped; when none is left the answer is `.unsatisfiable`.
    /// - Overlapping or adjacent ranges are coalesced; each coalesced range takes the place of the
    ///   earliest spec it absorbed, so parts keep the client's order (§14.2 "SHOULD send the parts
    ///   in the same order").
    /// - The whole representation is sent instead when the set has more specs than
    ///   `limits.maxRanges`, or when the requested bytes add up to more than the representation:
    ///   a range request must never cost more than a full one.
    /// - A zero-length representation has no byte to select: a satisfiable suffix there is
    ///   ignored (200), other specs are unsatisfiable.
    public static func select(_ rangeSet: ByteRangeSet, length: Int64, limits: RangeLimits) -> RangeSelection {
        guard rangeSet.specs.count <= limits.maxRanges else { return .full }
        if length == 0 {
            let hasSuffix = rangeSet.specs.contains { if case .suffix(let n) = $0 { n > 0 } else { false } }
            return hasSuffix ? .full : .unsatisfiable
        }
        let resolved = rangeSet.specs.compactMap { $0.resolve(length: length) }
        guard !resolved.isEmpty else { return .unsatisfiable }
        var requested: Int64 = 0
        for range in resolved {
            requested += range.upperBound - range.lowerBound + 1
            if requested > length { return .full }
        }
        return .ranges(coalesce(resolved))
    }

    /// Merges ranges that overlap or touch, keeping the order of first appearance.
    static func coalesce(_ ranges: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        guard ranges.count > 1 else { return ranges }
        let byStart = ranges.indices.sorted { (ranges[$0].lowerBound, $0) < (ranges[$1].lowerBound, $1) }
        var merged: [(range: ClosedRange<Int64>, firstIndex: Int)] = []
        for index in byStart {
            let range = ranges[index]
            if let last = merged.last, range.lowerBound <= last.range.upperBound + 1 {
                merged[merged.count - 1] = (
                    last.range.lowerBound...max(last.range.upperBound, range.upperBound), min(last.firstIndex, index)
                )
            } else {
                merged.append((range, index))
            }
        }
        return merged.sorted { $0.firstIndex < $1.firstIndex }.map(\.range)
    }
}
