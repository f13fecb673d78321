import DepotHTTP
import DepotManifest
import Hummingbird

/// What a GET or HEAD request path names among the content Depot serves. The one place where a
/// path becomes a resource's name: Hummingbird's routes and ``DirectResponder`` both parse
/// here, so a rule (the `.gz` of a blob, the `index.html` of a folder) is written once.
enum ContentTarget: Hashable, Sendable {
    /// `/manifest.json`: the document of a channel.
    case channel(String)
    /// `/files/{path}`: the live file at `path`, or the digest sidecar `path` names.
    case file(String)
    /// `/blobs/{sha256}`.
    case blob(String)
    /// `/blobs/{sha256}.gz`.
    case gzipBlob(String)
    /// `/blobs/{sha256}.br` and `.zst`: the brotli and zstd variants.
    case variantBlob(String, ContentCoding)
    /// `/blobs/{sha256}.blocks`: the block index of a content.
    case blockIndex(String)
    /// `/blobs/{sha256}.zblocks`: its blocks, each deflated on its own.
    case packedBlocks(String)
    /// A file of the public folder, by its path relative to the folder.
    case publicFile(String)

    /// The routes whose resources are content targets, as the router registers them. A route's
    /// description is what Hummingbird reports as the request's endpoint, so it is also the
    /// route label of the metrics, on both paths.
    enum Route: CaseIterable, Sendable {
        case manifest, files, blob

        var path: RouterPath {
            switch self {
            case .manifest: RouterPath(TreeObject.Kind.manifest.route)
            case .files: "/files/**"
            case .blob: RouterPath(TreeObject.Kind.blob.route)
            }
        }

        /// Each route with its label (its path's description), by its first path segment:
        /// worked out once, not on every request.
        static let byFirstSegment: [Substring: (route: Route, label: String)] = Dictionary(
            uniqueKeysWithValues: allCases.map { route in
                let label = route.path.description
                return (label.dropFirst().prefix { $0 != "/" }, (route, label))
            }
        )
    }

    /// The route label of requests served from the public folder (Hummingbird's router has no
    /// route for them).
    static let publicRoute = "public"

    /// What `path` (without the query) names under `route`; `nil` when it has not that route's
    /// shape. Throws an `HTTPError` (400) for a path that route refuses.
    init?(route: Route, path: String) throws {
        switch route {
        case .manifest:
            guard path == TreeObject.manifest.url else { return nil }
            self = .channel(ChannelName.default)
        case .files:
            self = .file(try LogicalPath.parse(path, prefix: "/files", maxLength: .max))
        case .blob:
            let prefix = "/" + TreeObject.Kind.blob.folder! + "/"
            guard path.hasPrefix(prefix) else { return nil }
            let name = path.dropFirst(prefix.count)
            guard !name.isEmpty, !name.contains("/") else { return nil }
            let sidecar = Self.blobSidecars.first { name.hasSuffix($0.suffix) }
            self = sidecar.map { $0.target(String(name.dropLast($0.suffix.count))) } ?? .blob(String(name))
        }
    }

    /// The objects beside a blob, by the suffix of their name: `/blobs/{sha256}{suffix}`.
    private static let blobSidecars: [(suffix: String, target: @Sendable (String) -> ContentTarget)] = [
        (".gz", { .gzipBlob($0) }), (".br", { .variantBlob($0, .br) }), (".zst", { .variantBlob($0, .zstd) }),
        (".zblocks", { .packedBlocks($0) }), (".blocks", { .blockIndex($0) }),
    ]

    /// The public folder's file for `path`: a path ending in `/` names the folder's
    /// `index.html`. Throws an `HTTPError` (400) for a path that cannot name a file.
    init(publicPath path: String) throws {
        if let plain = RequestPath.plainRelativePath(path[...]) {
            self = .publicFile(String(plain))
            return
        }
        let decoded: RequestPath
        do {
            decoded = try RequestPath(decoding: path)
        } catch {
            throw HTTPError(.badRequest, message: "The request path is not acceptable: \(error.explanation)")
        }
        self = .publicFile(decoded.hasTrailingSlash ? (decoded.segments + ["index.html"]).joined(separator: "/") : decoded.relativePath)
    }

    /// The target of a request target (path and query) and its route label, as Hummingbird
    /// would route it: a content route by its first segment, the public folder for a first
    /// segment no route has. `nil` for another route or a path that would be refused.
    static func resolve(requestTarget: String, routedSegments: Set<Substring>) -> (target: ContentTarget, route: String, path: String)? {
        guard requestTarget.utf8.first == UInt8(ascii: "/") else { return nil }
        let path = requestTarget.firstIndex(of: "?").map { String(requestTarget[..<$0]) } ?? requestTarget
        let first = path.dropFirst().prefix { $0 != "/" }
        guard routedSegments.contains(first) else {
            return (try? ContentTarget(publicPath: path)).map { ($0, publicRoute, path) }
        }
        guard let (route, label) = Route.byFirstSegment[first], let target = try? ContentTarget(route: route, path: path) else { return nil }
        return (target, label, path)
    }

    /// The message of the 404 when nothing is there.
    var notFoundMessage: String {
        switch self {
        case .channel: "Nothing is published yet"
        case .file(let path): "\(path) is not published"
        case .blob(let name): "No blob \(name)"
        case .gzipBlob(let name): "No blob \(name).gz"
        case .variantBlob(let name, let coding): "No \(coding == .br ? "brotli" : "zstd") variant of \(name)"
        case .blockIndex(let name): "No block index of \(name)"
        case .packedBlocks(let name): "No packed blocks of \(name)"
        case .publicFile: "No file at this path"
        }
    }
}

extension Router {
    /// The first path segments of this router's routes: a path under one of them is never
    /// the public folder's.
    var routedSegments: Set<Substring> {
        Set(routes.map { Substring($0.path.description.dropFirst().prefix { $0 != "/" }) })
    }
}
