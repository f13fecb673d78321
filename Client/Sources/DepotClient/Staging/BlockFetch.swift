import Crypto
import DepotConcurrency
import DepotDelta
import DepotHTTP
import DepotManifest
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Rebuilds a content from a local copy that is no published version of it (the app wrote to
/// it, or it was damaged): fetches the content's block index (checked against the SHA-256 the
/// release lists), finds the blocks the copy already holds at any offset (``BlockMatcher``),
/// and fetches only the others, each deflated on its own, by ranges of `/blobs/{sha256}.zblocks`.
///
/// The ranges go a few dozen to a request, as `multipart/byteranges`, where the path serves
/// several ranges a request; where a proxy or CDN refuses them (it answers 200 with the whole
/// object), one range a request, several at once. Which is learnt from the index itself, asked
/// for as two ranges: either answer brings the index whole, and no packed object is downloaded
/// whole to find out. Every fetched block is checked against the index before it is written, and
/// the caller checks the whole file's SHA-256 before it is staged.
struct BlockFetch {
    let server: URL
    let session: TransferSession
    /// Requests at once.
    let width: Int
    /// Ranges in one request.
    let rangesPerRequest = 48
    /// Packed bytes one request asks for, at most (a single block excepted): what a request
    /// holds in memory.
    let bytesPerRequest: Int64 = 4 << 20

    /// The blocks would cost at least what fetching the file another way costs.
    struct NotWorthIt: Error, CustomStringConvertible {
        let expected: Int64
        let budget: Int64
        var description: String { "the blocks would cost \(expected) bytes, the file itself \(budget)" }
    }

    /// Writes `entry`'s content at `output` from the local copy `matched` found blocks in
    /// (``match(_:from:budget:received:)``) and the blocks it lacks; counts what it receives in
    /// `received`.
    ///
    /// - Throws: ``SyncError`` `.corrupt` for a block that does not match the index.
    func rebuild(_ entry: ReleaseEntry, from matched: Matched, to output: FolderFile, received: ByteCounter) async throws {
        let (index, copy, found, runs, offsets) = (matched.index, matched.copy, matched.found, matched.runs, matched.offsets)
        let multipleRanges = matched.multipleRanges

        let file = try OutputFile(output)
        try file.truncate(to: entry.size)
        for (block, offset) in found.enumerated() {
            guard let offset else { continue }
            try file.write(copy[offset..<offset + index.length(ofBlock: block)], at: Int64(block * index.blockSize))
        }
        let packedPath = try entry.packedBlocksURL
        let packedURL = try OriginPolicy.url(packedPath, below: server)
        let ranges = runs.map { offsets[$0.lowerBound]...(offsets[$0.upperBound + 1] - 1) }
        let groups = Self.groups(ranges, rangesPerRequest: rangesPerRequest, bytesPerRequest: bytesPerRequest)
        /// Fetches the runs `group`, as one request when `together`, and writes their blocks.
        @Sendable func fetchRuns(_ group: Range<Int>, together: Bool) async throws {
            let requests = together ? [group] : group.map { $0..<$0 + 1 }
            _ = try await mapConcurrently(requests, width: together ? 1 : width) { part in
                let answer = try await RangeFetch.run(packedURL, ranges: Array(ranges[part]), session: session, received: received)
                guard case .parts(let parts) = answer else { throw SyncError(.server, "\(packedPath) did not answer 206") }
                for run in part { try write(run: runs[run], packed: ranges[run], from: parts) }
            }
        }
        /// Writes the blocks of `run`, whose packed bytes are `packed`, from the parts received.
        @Sendable func write(
            run: ClosedRange<Int>,
            packed: ClosedRange<Int64>,
            from parts: [(range: ClosedRange<Int64>, bytes: ArraySlice<UInt8>)]
        ) throws {
            guard let part = parts.first(where: { $0.range.contains(packed.lowerBound) && $0.range.contains(packed.upperBound) }) else {
                throw SyncError(.corrupt, "\(packedPath) did not send the ranges asked for")
            }
            let inflater = try GzipInflater(bufferSize: index.blockSize, framing: .raw)
            for block in run {
                let start = part.bytes.startIndex + Int(offsets[block] - part.range.lowerBound)
                let end = part.bytes.startIndex + Int(offsets[block + 1] - part.range.lowerBound)
                do {
                    let bytes = try part.bytes[start..<end].withUnsafeBytes { try index.unpack(block: block, from: $0, inflater: inflater) }
                    try file.write(Data(bytes), at: Int64(block * index.blockSize))
                } catch let error as VCDIFFError {
                    throw SyncError(.corrupt, "a block of \(entry.path) does not match its index: \(error.message)")
                }
            }
        }
        _ = try await mapConcurrently(groups, width: multipleRanges ? min(2, width) : 1) { group in
            try await fetchRuns(group, together: multipleRanges)
        }
    }

    /// What a rebuild of `entry` from `local` finds: the verified index, the local copy, where
    /// the copy holds each block, the runs of blocks it lacks and their packed offsets, and
    /// what the rebuild transfers (index included).
    struct Matched {
        let index: BlockIndex
        let copy: Data
        let found: [Int?]
        let runs: [ClosedRange<Int>]
        let offsets: [Int64]
        let multipleRanges: Bool
        /// The block index's length.
        let indexBytes: Int64
        /// What the rebuild transfers, the index included.
        let expected: Int64
    }

    /// Fetches and checks `entry`'s block index and matches `local` against it: what
    /// ``rebuild(_:from:to:received:)`` fetches, and what ``DepotClient/check()`` expects it
    /// to.
    ///
    /// - Parameter budget: What the file costs another way: past it (index included), blocks are
    ///   not fetched and ``NotWorthIt`` is thrown.
    /// - Throws: ``SyncError`` `.corrupt` for an index that does not match the release.
    func match(_ entry: ReleaseEntry, from local: FolderFile, budget: Int64, received: ByteCounter) async throws -> Matched {
        guard let listed = entry.blocks, let indexURL = try entry.blockIndexURL else { throw SyncError(.corrupt, "\(entry.path) has no block index") }
        // The size comes from the release: an index that alone costs the budget is not fetched
        // (nor held in memory), whatever size a server lists.
        guard listed.size >= 0, listed.size < budget else { throw NotWorthIt(expected: max(listed.size, 0), budget: budget) }
        let (data, multipleRanges) = try await fetchIndex(try OriginPolicy.url(indexURL, below: server), length: Int(listed.size), received: received)
        guard data.count == listed.size, Hex.string(SHA256.hash(data: data)) == listed.sha256 else {
            throw SyncError(.corrupt, "the block index of \(entry.path) does not match the release")
        }
        let index: BlockIndex
        do {
            index = try BlockIndex(decoding: Array(data))
        } catch {
            throw SyncError(.corrupt, "the block index of \(entry.path) cannot be read: \(error)")
        }
        guard index.contentSize == entry.size else { throw SyncError(.corrupt, "the block index of \(entry.path) is for another size") }

        // Mapped through the folder's descriptor, not read into memory; a link there holds nothing.
        let copy = (try? local.mapped()) ?? Data()
        let found = copy.withUnsafeBytes { BlockMatcher.match(index, in: $0) }
        let offsets = index.packedOffsets()
        let runs = Self.missingRuns(found).flatMap { Self.split($0, offsets: offsets, maximumBytes: bytesPerRequest) }
        let expected = Int64(data.count) + runs.reduce(0) { $0 + offsets[$1.upperBound + 1] - offsets[$1.lowerBound] }
        guard expected < budget else { throw NotWorthIt(expected: expected, budget: budget) }
        return Matched(
            index: index,
            copy: copy,
            found: found,
            runs: runs,
            offsets: offsets,
            multipleRanges: multipleRanges,
            indexBytes: Int64(data.count),
            expected: expected
        )
    }

    /// Fetches the block index at `url` (`length` bytes) as two ranges: a 206 with both says the
    /// path serves several ranges a request; a 200 (a proxy or CDN that refuses them) brings the
    /// index all the same, and says the packed blocks must be asked for one range a request.
    func fetchIndex(_ url: URL, length: Int, received: ByteCounter) async throws -> (Data, multipleRanges: Bool) {
        guard length >= 2 else { throw SyncError(.corrupt, "a block index of \(length) bytes") }
        let half = Int64(length / 2)
        let answer = try await RangeFetch.run(
            url,
            ranges: [0...half - 1, half...Int64(length - 1)],
            session: session,
            received: received,
            wholeLength: length
        )
        switch answer {
        case .whole(let bytes):
            return (Data(bytes), false)
        case .parts(let parts):
            var index = Data()
            for part in parts.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
                guard part.range.lowerBound == Int64(index.count) else { throw SyncError(.corrupt, "\(url.path) sent other ranges than asked for") }
                index.append(contentsOf: part.bytes)
            }
            return (index, parts.count > 1)
        }
    }

    /// `ranges` in consecutive groups of at most `rangesPerRequest` ranges and
    /// `bytesPerRequest` bytes (a longer range alone in its group): one request each.
    static func groups(_ ranges: [ClosedRange<Int64>], rangesPerRequest: Int, bytesPerRequest: Int64) -> [Range<Int>] {
        var groups: [Range<Int>] = []
        var start = 0
        var bytes: Int64 = 0
        for (index, range) in ranges.enumerated() {
            let length = range.upperBound - range.lowerBound + 1
            if index > start, index - start == rangesPerRequest || bytes + length > bytesPerRequest {
                groups.append(start..<index)
                start = index
                bytes = 0
            }
            bytes += length
        }
        if start < ranges.count { groups.append(start..<ranges.count) }
        return groups
    }

    /// `run` cut into runs of at most `maximumBytes` packed bytes (a single block excepted),
    /// `offsets` being where each block starts in the packed object.
    static func split(_ run: ClosedRange<Int>, offsets: [Int64], maximumBytes: Int64) -> [ClosedRange<Int>] {
        var runs: [ClosedRange<Int>] = []
        var start = run.lowerBound
        for block in run where block > start && offsets[block + 1] - offsets[start] > maximumBytes {
            runs.append(start...block - 1)
            start = block
        }
        return runs + [start...run.upperBound]
    }

    /// The runs of consecutive blocks not found, as ranges of block numbers.
    static func missingRuns(_ found: [Int?]) -> [ClosedRange<Int>] {
        var runs: [ClosedRange<Int>] = []
        for (block, offset) in found.enumerated() where offset == nil {
            if let last = runs.last, last.upperBound == block - 1 {
                runs[runs.count - 1] = last.lowerBound...block
            } else {
                runs.append(block...block)
            }
        }
        return runs
    }
}

/// The file a rebuild writes, at any offset, from several requests at once.
private final class OutputFile: Sendable {
    private let handle: Locked<FileHandle>

    init(_ file: FolderFile) throws {
        self.handle = Locked(try file.writing(truncating: true))
    }

    deinit {
        handle.withLock { try? $0.close() }
    }

    func truncate(to size: Int64) throws {
        try handle.withLock { try $0.truncate(atOffset: UInt64(size)) }
    }

    func write(_ bytes: Data, at offset: Int64) throws {
        try handle.withLock { handle in
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: bytes)
        }
    }
}
