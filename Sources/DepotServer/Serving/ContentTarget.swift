import DepotAPI
import DepotHTTP
import DepotManifest
import Hummingbird

/// What a GET or HEAD request path names among the content Depot serves: where Hummingbird's
/// routes and ``DirectResponder`` both turn a path into a resource's name. An object of the
/// tree (`/manifest.json`, a blob and its variants) is named by ``DepotManifest/TreeObject``,
/// which alone parses those names; the live files and the public folder are named here.
enum ContentTarget: Hashable, Sendable {
    /// An object of the tree: `/manifest.json` (the default channel's document), `/blobs/{sha256}`
    /// and its variants, block index and block pack.
    case object(TreeObject)
    /// `/files/{path}`: the live file at `path`, or the digest sidecar `path` names.
    case file(String)
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
    /// shape. Throws an `HTTPError`: 400 for a path that route refuses, 404 for a name under
    /// `/blobs/` that no object of the tree has (``DepotManifest/TreeObject/init(in:named:)``).
    init?(route: Route, path: String) throws {
        switch route {
        case .manifest:
            guard path == TreeObject.manifest.url else { return nil }
            self = .object(.manifest)
        case .files:
            self = .file(try LogicalPath.parse(path, prefix: "/files", maxLength: .max))
        case .blob:
            let prefix = "/" + TreeObject.Kind.blob.folder! + "/"
            guard path.hasPrefix(prefix) else { return nil }
            let name = String(path.dropFirst(prefix.count))
            guard !name.isEmpty, !name.contains("/") else { return nil }
            guard let object = TreeObject(in: .blob, named: name) else {
                throw HTTPError(.notFound, message: "No blob \(RequestedName.quoted(name))")
            }
            self = .object(object)
        }
    }

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
        case .object(let object):
            let name = object.address ?? ""
            return switch object.kind {
            case .gzip: "No blob \(name).gz"
            case .brotli: "No brotli variant of \(name)"
            case .zstd: "No zstd variant of \(name)"
            case .blockIndex: "No block index of \(name)"
            case .blockPack: "No packed blocks of \(name)"
            case .manifest, .channel: "Nothing is published yet"
            default: "No blob \(name)"
            }
        case .file(let path): return "\(path) is not published"
        case .publicFile: return "No file at this path"
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
