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

    /// The number of requests so far, optionally only those whose path starts with `prefix`.
    public func total(pathPrefix prefix: String = "") -> Int {
        snapshot.filter { $0.key.path.hasPrefix(prefix) }.values.reduce(0, +)
    }
}

/// Records every response (errors included) in a ``RequestCounter``.
struct RequestCounterMiddleware<Context: RequestContext>: RouterMiddleware {
    let counter: RequestCounter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            counter.record(method: request.method.rawValue, path: request.uri.path, status: response.status.code)
            return response
        } catch let error as any HTTPResponseError {
            counter.record(method: request.method.rawValue, path: request.uri.path, status: error.status.code)
            throw error
        }
    }
}
