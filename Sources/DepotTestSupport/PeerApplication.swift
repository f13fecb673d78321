import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import ServiceLifecycle

/// An application whose requests, answered by its router in process (`test(.router)`), come from
/// `peer`: each request's context is made as Hummingbird's router test framework makes it, on a
/// test channel whose remote address is `peer`, where the framework's has none. The server's
/// own checks of a client's address (trusted proxies and `X-Forwarded-For`, the report networks,
/// the audit trail's client) then run on it as on a socket's peer; nothing else changes. With no
/// peer, the context is the framework's.
struct PeerApplication<Base: ApplicationProtocol>: ApplicationProtocol {
    let base: Base
    let peer: SocketAddress?

    var responder: PeerResponder<Base.Responder> {
        get async throws { PeerResponder(base: try await base.responder, peer: peer, logger: base.logger) }
    }
    var server: HTTPServerBuilder { base.server }
    var configuration: ApplicationConfiguration { base.configuration }
    var logger: Logger { base.logger }
    var services: [any Service] { base.services }
    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { base.processesRunBeforeServerStart }
}

/// ``PeerApplication``'s responder: the base's, on a context from its peer.
struct PeerResponder<Base: HTTPResponder>: HTTPResponder where Base.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let base: Base
    let peer: SocketAddress?
    let logger: Logger

    func respond(to request: Request, context: Base.Context) async throws -> Response {
        guard let peer else { return try await base.respond(to: request, context: context) }
        let channel = NIOAsyncTestingChannel()
        channel.remoteAddress = peer
        // The framework's logger, with the request's id (the application's when it has none).
        let logger = (context as? any RequestContext)?.logger ?? self.logger
        return try await base.respond(to: request, context: Base.Context(source: .init(channel: channel, logger: logger)))
    }
}
