import DepotHTTP
import DepotManifest

/// The resource behind a GET or HEAD target, found without Hummingbird's router, exactly as the
/// routes and the public-folder middleware find it: `/manifest.json`, `/files/…` (and the digest
/// sidecars), `/blobs/…`, and otherwise the public folder. Published content is taken from
/// ``PublishedContent``'s cache only. `nil` (a resource not cached, a missing resource, a bad
/// path, another route) leaves the request to Hummingbird, which answers it in full, errors
/// included, and fills the cache.
struct DirectRoutes: Sendable {
    let content: PublishedContent
    let site: PublicSite

    /// First path segments that belong to Hummingbird's routes: never the public folder.
    static let routedSegments: Set<Substring> = [
        "manifest.json", "files", "blobs", "deltas", "channels", "releases", "pages", "v1", "healthz", "readyz", "metrics",
    ]

    /// The resource for the request target `target` (path and query), the route label the
    /// metrics use for it, and the path without the query.
    func resolve(target: String) -> (resource: Resource, route: String, path: String)? {
        guard target.utf8.first == UInt8(ascii: "/") else { return nil }
        let path = target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
        let first = path.dropFirst().prefix { $0 != "/" }
        if Self.routedSegments.contains(first) {
            return routed(path: path, first: first).map { ($0.resource, $0.route, path) }
        }
        let relativePath: String
        if let plain = RequestPath.plainRelativePath(path[...]) {
            relativePath = String(plain)
        } else {
            guard let decoded = try? RequestPath(decoding: path) else { return nil }
            relativePath = decoded.hasTrailingSlash ? (decoded.segments + ["index.html"]).joined(separator: "/") : decoded.relativePath
        }
        return site.resource(at: relativePath).map { ($0, "public", path) }
    }

    private func routed(path: String, first: Substring) -> (resource: Resource, route: String)? {
        switch first {
        case "manifest.json" where path == "/manifest.json":
            return content.channel(named: ChannelName.default).map { ($0, "/manifest.json") }
        case "files":
            guard let logical = try? LogicalPath.parse(path, prefix: "/files", maxLength: .max) else { return nil }
            return content.cached(.file(logical)).map { ($0, "/files/**") }
        case "blobs":
            let name = path.dropFirst("/blobs/".count)
            guard path.hasPrefix("/blobs/"), !name.isEmpty, !name.contains("/") else { return nil }
            let resource = content.cached(name.hasSuffix(".gz") ? .gzipBlob(String(name.dropLast(3))) : .blob(String(name)))
            return resource.map { ($0, "/blobs/{name}") }
        default:
            // `/deltas/…` too: a patch's 200 also counts the bytes it saved, which Hummingbird's
            // route does; a client asks for a patch once a version, so speed does not matter.
            return nil
        }
    }
}
