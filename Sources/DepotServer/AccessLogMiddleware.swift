import DepotHTTP
import HTTPTypes
import Hummingbird
import Logging

/// One structured log line a request: request id, client (from `X-Forwarded-For` only when the
/// peer is a trusted proxy), method, path, status, bytes and duration. The request id is also
/// sent back as `X-Request-Id`, so a client's report can be matched with the server's log.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = DepotRequestContext
    let trustedProxies: Set<String>

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
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        let elapsed = ContinuousClock.now - start
        context.logger.info(
            "request",
            metadata: [
                "client": .string(
                    ForwardedClient.address(peer: peer, forwardedFor: request.headers[values: .xForwardedFor], trustedProxies: trustedProxies)
                ),
                "scheme": .string(
                    ForwardedClient.scheme(peer: peer, forwardedProto: request.headers[.xForwardedProto], trustedProxies: trustedProxies)
                ),
                "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
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
