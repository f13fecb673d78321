import Hummingbird
import Synchronization

/// Counts the requests the server answers, by method, path and status.
public final class RequestCounter: Sendable {
    /// One counted kind of request.
    public struct Key: Hashable, Sendable {
        public let method: String
        public let path: String
        public let status: Int
    }

    private let counts = Mutex<[Key: Int]>([:])

    public init() {}

    func record(method: String, path: String, status: Int) {
        counts.withLock { $0[Key(method: method, path: path, status: status), default: 0] += 1 }
    }

    /// Every count so far.
    public var snapshot: [Key: Int] { counts.withLock { $0 } }

    /// The number of requests so far, optionally only those whose path starts with `prefix`
    /// and ends with `suffix`.
    public func total(pathPrefix prefix: String = "", pathSuffix suffix: String = "") -> Int {
        snapshot.filter { $0.key.path.hasPrefix(prefix) && $0.key.path.hasSuffix(suffix) }.values.reduce(0, +)
    }
}

/// Records every response (errors included) in ``DepotMetrics`` and, when given one, a ``RequestCounter``,
/// by the route that matched (`public` for the public folder).
struct RequestCounterMiddleware<Context: RequestContext>: RouterMiddleware {
    let counter: RequestCounter?
    let metrics: DepotMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            let bytes = request.method == .head ? 0 : response.headers[.contentLength].flatMap(Int64.init) ?? 0
            record(request, context: context, status: response.status.code, bytes: bytes)
            return response
        } catch let error as any HTTPResponseError {
            record(request, context: context, status: error.status.code, bytes: 0)
            throw error
        }
    }

    private func record(_ request: Request, context: Context, status: Int, bytes: Int64) {
        counter?.record(method: request.method.rawValue, path: request.uri.path, status: status)
        // Requests no route matched reach the public folder; Hummingbird names their endpoint "NotFound".
        let route = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? "public"
        metrics.recordResponse(route: route, method: request.method.rawValue, status: status, contentBytes: bytes)
    }
}
