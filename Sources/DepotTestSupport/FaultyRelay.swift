import NIOCore
import NIOPosix
import Synchronization

/// A TCP relay on 127.0.0.1 in front of a server, for injecting network faults into real
/// clients: it can cut the next `/blobs/` response after a number of bytes, slow `/blobs/`
/// responses down, and trickle the responses on a connection that asked for a path one byte at
/// a time, as a hostile mirror holding a client would.
public final class FaultyRelay: Sendable {
    /// The port clients connect to.
    public let port: Int
    private struct Faults {
        var cutAfter: Int?
        var delayPerChunk: Duration?
        var trickle: (pathPrefix: String, interval: Duration)?
    }
    private let faults = Mutex(Faults())

    init(port: Int) {
        self.port = port
    }

    /// The next connection that asks for a `/blobs/` URL is closed after `bytes` bytes of response.
    public func cutNextBlobResponse(after bytes: Int) {
        faults.withLock { $0.cutAfter = bytes }
    }

    /// Every later `/blobs/` response waits this long before each chunk it forwards (nil: none).
    public func slowDownBlobResponses(by delay: Duration?) {
        faults.withLock { $0.delayPerChunk = delay }
    }

    /// Every later connection that asks for a path starting with `pathPrefix` gets its responses
    /// one byte each `interval` (nil: none).
    public func trickle(_ pathPrefix: String?, every interval: Duration = .milliseconds(100)) {
        faults.withLock { $0.trickle = pathPrefix.map { ($0, interval) } }
    }

    /// Starts a relay to `127.0.0.1:upstreamPort`, runs `body`, and stops it.
    public static func with<Result: Sendable>(upstreamPort: Int, _ body: @Sendable (FaultyRelay) async throws -> Result) async throws -> Result {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let relay = FaultyRelay(port: listener.channel.localAddress!.port!)
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                try await withThrowingDiscardingTaskGroup { connections in
                    try await listener.executeThenClose { inbound in
                        for try await client in inbound {
                            connections.addTask { try? await relay.relay(client, upstreamPort: upstreamPort) }
                        }
                    }
                }
                return nil
            }
            let result = try await body(relay)
            group.cancelAll()
            return result
        }
    }

    private func relay(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>, upstreamPort: Int) async throws {
        let upstream = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: upstreamPort) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await client.executeThenClose { clientInbound, clientOutbound in
            try await upstream.executeThenClose { upstreamInbound, upstreamOutbound in
                let isBlob = ConnectionFlag()
                let trickles = ConnectionFlag()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await buffer in clientInbound {
                            let request = String(buffer: buffer)
                            if request.hasPrefix("GET /blobs/") { isBlob.set() }
                            if let trickle = self.faults.withLock({ $0.trickle }), request.hasPrefix("GET \(trickle.pathPrefix)") { trickles.set() }
                            try await upstreamOutbound.write(buffer)
                        }
                    }
                    group.addTask {
                        var cutAfter: Int?
                        var forwarded = 0
                        for try await var buffer in upstreamInbound {
                            let faults = isBlob.value ? self.faults.withLock { $0 } : Faults()
                            if cutAfter == nil, isBlob.value, let cut = faults.cutAfter {
                                cutAfter = cut
                                self.faults.withLock { $0.cutAfter = nil }
                            }
                            if let delay = faults.delayPerChunk { try await Task.sleep(for: delay) }
                            if let cut = cutAfter, forwarded + buffer.readableBytes >= cut {
                                if let part = buffer.readSlice(length: cut - forwarded) { try await clientOutbound.write(part) }
                                throw CancellationError()  // closes both sides
                            }
                            forwarded += buffer.readableBytes
                            if trickles.value, let trickle = self.faults.withLock({ $0.trickle }) {
                                while let byte = buffer.readSlice(length: 1) {
                                    try await clientOutbound.write(byte)
                                    try await Task.sleep(for: trickle.interval)
                                }
                            } else {
                                try await clientOutbound.write(buffer)
                            }
                        }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        }
    }
}

/// Whether a relayed connection asked for something.
private final class ConnectionFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var value: Bool { flag.withLock { $0 } }
}
