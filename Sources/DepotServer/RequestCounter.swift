import Hummingbird
import Synchronization

/// Counts the requests the server answers, by method, path and status.
package final class RequestCounter: Sendable {
    /// One counted kind of request.
    package struct Key: Hashable, Sendable {
        package let method: String
        package let path: String
        package let status: Int
    }

    private let counts = Mutex<[Key: Int]>([:])
    private let direct = Atomic<Int>(0)
    private let corked = Atomic<Int>(0)

    package init() {}

    func record(method: String, path: String, status: Int, by responder: ResponseRecorder.Responder) {
        counts.withLock { $0[Key(method: method, path: path, status: status), default: 0] += 1 }
        if case .direct(let isCorked) = responder {
            direct.add(1, ordering: .relaxed)
            if isCorked { corked.add(1, ordering: .relaxed) }
        }
    }

    /// How many of the requests ``DirectResponder`` answered, below Hummingbird.
    package var answeredDirectly: Int { direct.load(ordering: .relaxed) }
    /// How many of those answers were corked (`TCP_CORK`) while a file was sent.
    package var corkedAnswers: Int { corked.load(ordering: .relaxed) }

    /// Every count so far.
    package var snapshot: [Key: Int] { counts.withLock { $0 } }

    /// The number of requests so far, optionally only those whose path starts with `prefix`
    /// and ends with `suffix`.
    package func total(pathPrefix prefix: String = "", pathSuffix suffix: String = "") -> Int {
        snapshot.filter { $0.key.path.hasPrefix(prefix) && $0.key.path.hasSuffix(suffix) }.values.reduce(0, +)
    }
}

/// Records one answered request in ``DepotMetrics`` and, when given one, a ``RequestCounter``:
/// what both Hummingbird's path (``RequestCounterMiddleware``) and ``DirectResponder`` call.
struct ResponseRecorder: Sendable {
    let counter: RequestCounter?
    let metrics: DepotMetrics

    /// Which path answered.
    enum Responder {
        case hummingbird
        /// ``DirectResponder``; `corked`: with `TCP_CORK` set while its file was sent.
        case direct(corked: Bool)
    }

    /// `route` is the matched route's label; `contentBytes` the content sent (0 for a HEAD).
    func record(method: String, path: String, route: String, status: Int, contentBytes: Int64, by responder: Responder) {
        counter?.record(method: method, path: path, status: status, by: responder)
        metrics.recordResponse(route: route, method: method, status: status, contentBytes: contentBytes)
    }
}

/// Records every response (errors included) with a ``ResponseRecorder``, by the route that
/// matched (``ContentTarget/publicRoute`` for the public folder).
struct RequestCounterMiddleware<Context: RequestContext>: RouterMiddleware {
    let recorder: ResponseRecorder

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
        // Requests no route matched reach the public folder; Hummingbird names their endpoint "NotFound".
        let route = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? ContentTarget.publicRoute
        recorder.record(method: request.method.rawValue, path: request.uri.path, route: route, status: status, contentBytes: bytes, by: .hummingbird)
    }
}
