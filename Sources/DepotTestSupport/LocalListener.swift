import NIOCore
import NIOPosix

/// A TCP listener on 127.0.0.1 for a test's own servers (``FaultyRelay``, ``BrokenServer``):
/// each connection handled by `handle` in a task of its own, for the length of `body`.
enum LocalListener {
    /// Listens on a free port, makes the server `make` returns for it, runs `body` with it while
    /// `handle(server, connection)` serves each connection, and stops.
    static func serve<Server: Sendable, Result: Sendable>(
        making make: (Int) -> Server,
        handle: @escaping @Sendable (Server, NIOAsyncChannel<ByteBuffer, ByteBuffer>) async throws -> Void,
        _ body: @Sendable (Server) async throws -> Result
    ) async throws -> Result {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let server = make(listener.channel.localAddress!.port!)
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                try await withThrowingDiscardingTaskGroup { connections in
                    try await listener.executeThenClose { inbound in
                        for try await connection in inbound {
                            connections.addTask { try? await handle(server, connection) }
                        }
                    }
                }
                return nil
            }
            let result = try await body(server)
            group.cancelAll()
            return result
        }
    }
}
