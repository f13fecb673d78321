import DepotManifest
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client's transport for ``TreeReader``: each object fetched over the sync's URLSession
/// from one server, never from a local cache, within the document deadline; the bytes that
/// arrive are counted, those of a transfer that then fails included.
struct SessionSource: TreeSource {
    let server: URL
    let session: TransferSession
    /// Seconds a document may take, whole (``DepotClient/Configuration/documentTimeout``).
    let deadline: TimeInterval?
    /// Every byte received through this source.
    let received = ByteCounter()

    var name: String { server.redacted }

    func fetch(_ object: TreeObject, maximumBytes: Int, ifNoneMatch: String?) async throws -> TreeAnswer {
        var request = URLRequest(url: server.appendingPathComponent(object.path))
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        if let ifNoneMatch { request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
        let fetch = BoundedFetch(maximumBytes: maximumBytes)
        defer { _ = received.add(fetch.bytesReceived) }
        let (http, data) = try await fetch.fetch(request, session: session, deadline: deadline)
        switch http.statusCode {
        case 200: return .found(Array(data), entityTag: http.value(forHTTPHeaderField: "ETag"))
        case 304: return .notModified
        case 404: return .missing
        default: return .status(http.statusCode)
        }
    }
}
