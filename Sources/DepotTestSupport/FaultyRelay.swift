import NIOCore
import NIOPosix
import Synchronization

/// A TCP relay on 127.0.0.1 in front of a server, for the faults whose subject is a socket: it
/// slows `/blobs/` (or `/packs/`) responses down, so that a process can be killed mid-download,
/// and severs every connection, as when a server far away dies. The faults a client's logic
/// meets (cut, trickled or tampered bodies, dropped ranges) are ``InProcessRelay``'s, in process.
public final class FaultyRelay: Sendable {
    /// The port clients connect to.
    public let port: Int
    private struct Faults {
        var delayPerChunk: Duration?
        var severed = false
    }
    private let faults = Mutex(Faults())

    init(port: Int) {
        self.port = port
    }

    /// Every connection closes before it forwards another chunk, and later ones are closed at
    /// once: with the upstream killed, what its sockets still held is not delivered, as when a
    /// server far away dies.
    public func sever() {
        faults.withLock { $0.severed = true }
    }

    /// Every later `/blobs/` response waits this long before each chunk it forwards (nil: none).
    public func slowDownBlobResponses(by delay: Duration?) {
        faults.withLock { $0.delayPerChunk = delay }
    }

    /// Starts a relay to `127.0.0.1:upstreamPort`, runs `body`, and stops it.
    public static func with<Result: Sendable>(upstreamPort: Int, _ body: @Sendable (FaultyRelay) async throws -> Result) async throws -> Result {
        try await LocalListener.serve(
            making: FaultyRelay.init(port:),
            handle: { relay, client in try await relay.relay(client, upstreamPort: upstreamPort) },
            body
        )
    }

    private func relay(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>, upstreamPort: Int) async throws {
        let upstream: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            if faults.withLock({ $0.severed }) { throw CancellationError() }
            upstream = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: upstreamPort) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            // The upstream is down (a killed server): the client's connection is closed too.
            try await client.executeThenClose { _, _ in }
            throw error
        }
        try await client.executeThenClose { clientInbound, clientOutbound in
            try await upstream.executeThenClose { upstreamInbound, upstreamOutbound in
                let isBlob = ConnectionFlag()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await buffer in clientInbound {
                            let request = String(buffer: buffer)
                            // A chunk that starts a request line (keep-alive requests come one
                            // after the other, each in its chunk, from the clients under test).
                            if request.hasPrefix("GET /blobs/") || request.hasPrefix("GET /packs/") { isBlob.set() }
                            try await upstreamOutbound.write(buffer)
                        }
                    }
                    group.addTask {
                        for try await buffer in upstreamInbound {
                            if self.faults.withLock({ $0.severed }) { throw CancellationError() }
                            if isBlob.value, let delay = self.faults.withLock({ $0.delayPerChunk }) {
                                try await Task.sleep(for: delay)
                                if self.faults.withLock({ $0.severed }) { throw CancellationError() }
                            }
                            try await clientOutbound.write(buffer)
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
