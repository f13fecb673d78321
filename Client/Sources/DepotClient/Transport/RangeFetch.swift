import DepotHTTP
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One range request whose 206 is collected in memory, up to a limit; any other answer is
/// refused before its body (a proxy that ignores or refuses ranges answers 200 with the whole
/// object, which must not be downloaded here), unless the caller takes a 200 too.
final class RangeFetch: DataTaskDelegate, @unchecked Sendable {
    /// What a range request brought.
    enum Answer {
        /// A 206: each part, with its range.
        case parts([(range: ClosedRange<Int64>, bytes: ArraySlice<UInt8>)])
        /// A 200, taken when asked for: the whole object.
        case whole([UInt8])
    }

    // Touched only on the session's serial delegate queue, then read once the task completed.
    private let maximumBytes: Int
    private let takesWhole: Bool
    private var body: [UInt8] = []
    private var response: HTTPURLResponse?

    init(maximumBytes: Int, takesWhole: Bool) {
        self.maximumBytes = maximumBytes
        self.takesWhole = takesWhole
    }

    /// Asks `url`, an immutable URL (so without `If-Range`: every block is checked anyway), for
    /// `ranges` in one `Range` field, and returns the parts of the 206: those of a
    /// `multipart/byteranges` body, or its one part; or, when `wholeLength` is given, the whole
    /// object of a 200. What arrives is counted in `received`, even when this throws.
    ///
    /// - Throws: ``SyncError`` `.server` for any other status, `.corrupt` for a body past the
    ///   limit or not of that shape.
    static func run(
        _ url: URL,
        ranges: [ClosedRange<Int64>],
        session: TransferSession,
        received: ByteCounter,
        wholeLength: Int? = nil
    ) async throws -> Answer {
        var request = URLRequest.bytes(of: url)
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        request.setValue("bytes=" + ranges.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ","), forHTTPHeaderField: "Range")
        let requested = ranges.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound + 1) }
        let fetch = RangeFetch(maximumBytes: max(requested + 256 * ranges.count + 1024, wholeLength ?? 0), takesWhole: wholeLength != nil)
        defer { _ = received.add(fetch.bytesReceived) }
        try await fetch.run(request, session: session)
        guard let response = fetch.response else { throw SyncError(.server, "no response") }
        if response.statusCode == 200 { return .whole(fetch.body) }
        let contentType = response.value(forHTTPHeaderField: "Content-Type") ?? ""
        if let boundary = MultipartByteRanges.boundary(ofContentType: contentType) {
            do {
                return .parts(try MultipartByteRanges.parse(fetch.body, boundary: boundary))
            } catch {
                throw SyncError(.corrupt, "\(url.path) answered a bad multipart/byteranges body: \(error.message)")
            }
        }
        guard let (range, _) = ContentRange.parse(response.value(forHTTPHeaderField: "Content-Range") ?? ""),
            range.upperBound - range.lowerBound + 1 == Int64(fetch.body.count)
        else { throw SyncError(.corrupt, "\(url.path) answered a 206 without a usable Content-Range") }
        return .parts([(range, fetch.body[...])])
    }

    override func accept(_ response: HTTPURLResponse, task: URLSessionDataTask) throws {
        guard response.statusCode == 206 || (response.statusCode == 200 && takesWhole) else {
            throw SyncError(.server, "\(task.originalRequest?.url?.path ?? "a range request") answered \(response.statusCode)")
        }
        self.response = response
    }

    override func receive(_ data: Data, task: URLSessionDataTask) throws {
        guard body.count + data.count <= maximumBytes else {
            throw SyncError(.corrupt, "\(task.originalRequest?.url?.path ?? "the answer") sent more than the ranges asked for")
        }
        body.append(contentsOf: data)
    }
}
