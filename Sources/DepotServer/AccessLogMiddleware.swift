import DepotHTTP
import HTTPTypes
import Hummingbird
import Logging

/// One structured log line a request: request id, client (from `X-Forwarded-For` only when the
/// peer is a trusted proxy), method, path, status, bytes and duration. The request id is also
/// sent back as `X-Request-Id`, so a client's report can be matched with the server's log.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = DepotRequestContext
    let accessLog: AccessLog

    init(trustedProxies: Set<String>) {
        self.accessLog = AccessLog(trustedProxies: trustedProxies)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            var response = try await next(request, context)
            response.headers[.requestID] = context.id
            log(request, context: context, status: response.status.code, bytes: response.headers[.contentLength], start: start)
            return response
        } catch let error as HTTPError {
            var edited = error
            edited.headers[.requestID] = context.id
            log(request, context: context, status: error.status.code, bytes: nil, start: start)
            throw edited
        } catch {
            log(request, context: context, status: 500, bytes: nil, start: start)
            throw error
        }
    }

    private func log(_ request: Request, context: Context, status: Int, bytes: String?, start: ContinuousClock.Instant) {
        accessLog.log(
            to: context.logger,
            peer: context.channel.remoteAddress?.ipAddress,
            method: request.method.rawValue,
            path: request.uri.path,
            status: status,
            bytes: bytes,
            start: start
        ) { request.headers[values: $0] }
    }
}

/// The access-log line, shared by the middleware and ``DirectResponder``.
struct AccessLog: Sendable {
    let trustedProxies: Set<String>

    /// Logs one request; `field` gives a request field's lines.
    func log(
        to logger: Logger,
        peer: String?,
        method: String,
        path: String,
        status: Int,
        bytes: String?,
        start: ContinuousClock.Instant,
        field: (HTTPField.Name) -> [String]
    ) {
        let peer = peer ?? "unknown"
        let elapsed = ContinuousClock.now - start
        logger.info(
            "request",
            metadata: [
                "client": .string(ForwardedClient.address(peer: peer, forwardedFor: field(.xForwardedFor), trustedProxies: trustedProxies)),
                "scheme": .string(
                    ForwardedClient.scheme(peer: peer, forwardedProto: field(.xForwardedProto).first, trustedProxies: trustedProxies)
                ),
                "method": .string(method),
                "path": .string(path),
                "status": .stringConvertible(status),
                "bytes": .string(bytes ?? "0"),
                "ms": .stringConvertible(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000),
            ]
        )
    }
}

extension HTTPField.Name {
    static let requestID = Self("X-Request-Id")!
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let xForwardedProto = Self("X-Forwarded-Proto")!
}
