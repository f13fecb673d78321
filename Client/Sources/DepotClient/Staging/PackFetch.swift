import DepotHTTP
import DepotManifest
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Small files fetched a page at a time: one request for a run of a page's pack
/// (`/packs/{page sha256}`, laid out by ``DepotManifest/ReleasePage/packMembers``) instead of
/// one request a file. Each file of the answer is checked against its entry and staged on its
/// own, so a fetch cut short keeps every file that arrived whole, and the next sync asks only
/// for the rest: a run never spans a file staged already.
struct PackFetch {
    /// One request: consecutive members of one page's pack.
    struct Run: Equatable {
        let page: String
        let members: [ReleasePage.PackMember]

        /// The bytes of the pack it covers.
        var range: ClosedRange<Int64> { members.first!.offset...(members.last!.offset + members.last!.length - 1) }
        /// The whole pack's length, from the page's members.
        let packLength: Int64
        /// Whether it is every member of the page.
        var isWholePage = false

        /// The bytes its members' contents add up to: what the brotli pack decodes to, in memory.
        var contentsLength: Int64 { members.reduce(0) { $0 + $1.entry.size } }

        /// Whether the page's brotli pack (`packs/{page}.br`) is asked for it first: a whole
        /// page, by a client that decodes brotli, whose contents fit in
        /// ``maximumDecodedBytes``: memory follows that bound, not the page. The one rule of the
        /// fetch and of a check's plan.
        var takesBrotliPack: Bool {
            isWholePage && contentsLength <= PackFetch.maximumDecodedBytes && ContentDecoders.decodable.contains(.br)
        }
    }

    /// The runs to fetch: maximal sequences of consecutive pack members of each page whose
    /// entries are all in `wanted` (by path); a run of fewer than ``minimumRun`` is left to a
    /// request of its own. Pure, so it is tested as a table.
    static func runs(pages: [(sha256: String, page: ReleasePage)], wanted: Set<String>) -> [Run] {
        var runs: [Run] = []
        for (sha256, page) in pages {
            let members = page.packMembers
            let packLength = members.last.map { $0.offset + $0.length } ?? 0
            var current: [ReleasePage.PackMember] = []
            func close() {
                if current.count >= minimumRun {
                    runs.append(Run(page: sha256, members: current, packLength: packLength, isWholePage: current.count == members.count))
                }
                current = []
            }
            for member in members {
                if wanted.contains(member.entry.path) { current.append(member) } else { close() }
            }
            close()
        }
        return runs
    }

    /// Runs shorter than this are not worth a pack request.
    static let minimumRun = 2

    /// The most a brotli pack may decode to: it is decoded into memory whole, and a few packs
    /// come at once. Each member is small once decoded (a whole download through memory,
    /// ``FileStager/inMemoryLimit``), but a page may hold many; a larger page comes in its plain
    /// pack, whose bytes are what the page lists.
    static let maximumDecodedBytes: Int64 = 4 << 20

    let server: URL
    let session: TransferSession

    /// The answer to a run: the bytes, and where in the pack they start; or, from the brotli
    /// pack, every member's contents end to end, decoded.
    struct Answer {
        let bytes: Data
        /// Where `bytes` start in the pack; `nil` for the members' contents.
        let start: Int64?
        /// Every byte the request moved: `bytes.count`, but for a brotli pack, and with what a
        /// brotli attempt that failed had moved.
        let transferred: Int64
    }

    /// Fetches `run`: for a whole page, its brotli pack when the server has one; else a range of
    /// the pack, or the whole pack when the server or a proxy answers 200. A brotli attempt
    /// that fails (none, damaged, or longer than the plain pack: it is cut off there) moved
    /// bytes all the same: the answer counts them.
    func fetch(_ run: Run) async throws -> Answer {
        var attempted: Int64 = 0
        if run.takesBrotliPack {
            let brotli = BoundedFetch(maximumBytes: Int(run.packLength))
            do {
                return try await fetchBrotli(run, with: brotli)
            } catch {
                attempted = brotli.bytesReceived
            }
        }
        let path = try TreeObject.pack(ofPage: run.page).url
        let range = run.range
        // The plan counted this request alone: after a failed attempt, it must still fit the budget.
        if attempted > 0 { try session.admit(Int64(range.count)) }
        // One set of range checks (``RangeFetch``): a 206 whose Content-Range or parts do not
        // match its body is refused; a 200 brings the whole pack.
        let received = ByteCounter()
        let answer = try await RangeFetch.run(
            try OriginPolicy.url(path, below: server),
            ranges: [range],
            session: session,
            received: received,
            wholeLength: Int(run.packLength)
        )
        switch answer {
        case .whole(let bytes):
            return Answer(bytes: Data(bytes), start: 0, transferred: attempted + received.total)
        case .parts(let parts):
            guard parts.count == 1, let part = parts.first, part.range.lowerBound == range.lowerBound else {
                throw SyncError(.server, "\(path) answered another range than asked")
            }
            return Answer(bytes: Data(part.bytes), start: range.lowerBound, transferred: attempted + received.total)
        }
    }

    /// The page's brotli pack, whole, decoded: at most as many bytes as the plain pack (the
    /// limit of `fetcher`: else it is no saving) and decoding to exactly the members' contents
    /// (else it is a bomb or damaged). Throws when the server has none (an origin or a mirror
    /// before them).
    private func fetchBrotli(_ run: Run, with fetcher: BoundedFetch) async throws -> Answer {
        let path = try TreeObject.brotliPack(ofPage: run.page).url
        var request = URLRequest.bytes(of: try OriginPolicy.url(path, below: server))
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        let (response, data) = try await fetcher.fetch(request, session: session, deadline: nil)
        guard response.statusCode == 200 else { throw SyncError(.server, "\(path) answered \(response.statusCode)") }
        let length = Int(run.contentsLength)
        var contents = Data()
        contents.reserveCapacity(length)
        guard let decoder = try ContentDecoders.decoder(for: .br) else { throw SyncError(.corrupt, "no brotli decoder") }
        func take(_ piece: UnsafeRawBufferPointer) throws {
            guard contents.count + piece.count <= length else { throw SyncError(.corrupt, "\(path) decodes to more than its files") }
            contents.append(contentsOf: piece)
        }
        try data.withUnsafeBytes { try decoder.decode($0, output: take) }
        try decoder.finish(output: take)
        guard decoder.isFinished, contents.count == length else { throw SyncError(.corrupt, "\(path) is cut short") }
        return Answer(bytes: contents, start: nil, transferred: Int64(data.count))
    }

    /// Stages each member of `run` that checks out in `answer` in `staging`;
    /// returns the files staged. A member that does not check out is left out (fetched on its
    /// own afterwards). The bytes of the answer are counted against the files staged.
    static func stage(_ run: Run, from answer: Answer, staging: StagingFolder) -> [SyncReport.File] {
        guard let start = answer.start else { return stageContents(run, from: answer.bytes, transferred: answer.transferred, staging: staging) }
        let data = answer.bytes
        var staged: [SyncReport.File] = []
        for member in run.members {
            let from = Int(member.offset - start)
            let to = from + Int(member.length)
            guard from >= 0, to <= data.count else { break }
            guard let target = try? staging.fileToWrite(member.entry.sha256),
                (try? StagedContent.stage(data[from..<to], coding: member.isGzip ? .gzip : .identity, entry: member.entry, to: target)) != nil
            else { continue }
            var file = SyncReport.File(path: member.entry.path, outcome: .packed, bytesTransferred: member.length, size: member.entry.size)
            file.encoding = member.isGzip ? ContentCoding.gzip.rawValue : nil
            staged.append(file)
        }
        // Bytes that staged nothing (a member that did not check out, a whole pack, a brotli
        // attempt that failed) count too.
        let extra = answer.transferred - staged.reduce(0) { $0 + $1.bytesTransferred }
        if extra > 0, !staged.isEmpty { staged[0].bytesTransferred += extra }
        return staged
    }

    /// Stages each member of `run` from `contents`, every member's contents end to end (a
    /// brotli pack decoded); the `transferred` bytes are shared among the files staged by size.
    private static func stageContents(_ run: Run, from contents: Data, transferred: Int64, staging: StagingFolder) -> [SyncReport.File] {
        var staged: [SyncReport.File] = []
        var from = 0
        for member in run.members {
            let to = from + Int(member.entry.size)
            defer { from = to }
            guard let target = try? staging.fileToWrite(member.entry.sha256),
                (try? StagedContent.stage(contents[from..<to], coding: .identity, entry: member.entry, to: target)) != nil
            else { continue }
            var file = SyncReport.File(path: member.entry.path, outcome: .packed, bytesTransferred: 0, size: member.entry.size)
            file.encoding = ContentCoding.br.rawValue
            staged.append(file)
        }
        for (index, share) in zip(staged.indices, shares(of: transferred, sizes: staged.map(\.size))) { staged[index].bytesTransferred = share }
        return staged
    }

    /// `transferred` bytes shared among files of `sizes` in proportion, the rest of the division
    /// to the first: how a brotli pack's bytes are counted against its files in a report.
    static func shares(of transferred: Int64, sizes: [Int64]) -> [Int64] {
        let total = max(1, sizes.reduce(0, +))
        var shares = sizes.map { transferred * $0 / total }
        if !shares.isEmpty { shares[0] += transferred - shares.reduce(0, +) }
        return shares
    }
}
