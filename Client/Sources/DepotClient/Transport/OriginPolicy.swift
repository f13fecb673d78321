import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the client may be sent: only to the server it was configured with. A redirect to
/// another scheme, host or port (https to http among them) is refused, so a hostile cache or
/// mirror cannot move a sync to a server of its choosing or off TLS.
enum OriginPolicy {
    static func isSameOrigin(_ url: URL, as server: URL) -> Bool {
        url.scheme?.lowercased() == server.scheme?.lowercased() && url.host?.lowercased() == server.host?.lowercased()
            && effectivePort(url) == effectivePort(server)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }

    /// The answer to URLSession's redirect question: follow `request` only when it stays on the
    /// origin of `original`; otherwise `nil`, and the task ends with the redirect response,
    /// which the caller reports as an unexpected status.
    static func redirect(_ request: URLRequest, from original: URLRequest?) -> URLRequest? {
        guard let target = request.url, let origin = original?.url, isSameOrigin(target, as: origin) else { return nil }
        return request
    }

    /// A URL of `server`: a path such as `/blobs/…`, taken below the server URL (which may have
    /// a path of its own, behind a proxy); refuses one that leads to another origin.
    static func url(_ path: String, below server: URL) throws -> URL {
        let relative = path.hasPrefix("/") && !path.hasPrefix("//") ? String(path.dropFirst()) : path
        guard let url = URL(string: relative, relativeTo: server)?.absoluteURL, OriginPolicy.isSameOrigin(url, as: server) else {
            throw SyncError(.corrupt, "the release has an invalid URL: \(path)")
        }
        return url
    }
}
