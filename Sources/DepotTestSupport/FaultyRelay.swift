import NIOCore
import NIOPosix
import Synchronization

/// A TCP relay on 127.0.0.1 in front of a server, for injecting network faults into real
/// clients: it can cut the next `/blobs/` (or `/packs/`) response after a number of bytes, slow
/// those responses down, trickle the responses on a connection that asked for a path one byte at
/// a time, as a hostile mirror holding a client would, alter a byte of the bodies of some
/// responses, as a tampering mirror would, and drop the `Range` of requests for several ranges,
/// as a proxy or CDN that refuses them does (the server then answers 200 with everything).
public final class FaultyRelay: Sendable {
    /// The port clients connect to.
    public let port: Int
    private struct Faults {
        var cutAfter: Int?
        var delayPerChunk: Duration?
        var trickle: (pathPrefix: String, interval: Duration)?
        var tamper: String?
        var dropsMultipleRanges = false
        var severed = false
    }
    private let faults = Mutex(Faults())
    /// The request lines relayed so far.
    private let requestLines = Mutex<[String]>([])

    init(port: Int) {
        self.port = port
    }

    /// Every connection closes before it forwards another chunk, and later ones are closed at
    /// once: with the upstream killed, what its sockets still held is not delivered, as when a
    /// server far away dies.
    public func sever() {
        faults.withLock { $0.severed = true }
    }

    /// The next connection that asks for a `/blobs/` URL is closed after `bytes` bytes of response
    /// (0: at its next chunk, one under way included).
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

    /// Every later response to a request whose target contains `pathPart` has the byte
    /// ``tamperedOffset`` of its body altered (``tampered(_:)``; nil: none).
    public func tamper(_ pathPart: String?) {
        faults.withLock { $0.tamper = pathPart }
    }

    /// Whether later requests for several ranges lose their `Range` field.
    public func dropMultipleRanges(_ drops: Bool = true) {
        faults.withLock { $0.dropsMultipleRanges = drops }
    }

    /// How many requests relayed so far have a request line starting with `prefix` (as
    /// `GET /blobs/`).
    public func requests(startingWith prefix: String) -> Int {
        requestLines.withLock { $0.filter { $0.hasPrefix(prefix) }.count }
    }

    /// The body byte a tampering relay alters (counted from 0), on a socket or in process
    /// (``InProcessRelay``).
    package static let tamperedOffset = 300

    /// What a tampering relay makes of that byte.
    package static func tampered(_ byte: UInt8) -> UInt8 { byte ^ 0x20 }

    /// `request` without its `Range` field when that asks for several ranges.
    static func withoutMultipleRanges(_ request: String) -> String {
        request.split(separator: "\r\n", omittingEmptySubsequences: false).filter { line in
            !(line.lowercased().hasPrefix("range:") && asksForSeveralRanges(line))
        }.joined(separator: "\r\n")
    }

    /// Whether a `Range` field (its value, or its whole line) asks for several ranges: the field
    /// a relay that drops them removes (on a socket, or in process: ``InProcessRelay``).
    package static func asksForSeveralRanges(_ range: some StringProtocol) -> Bool {
        range.contains(",")
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
                let trickles = ConnectionFlag()
                let tampers = ConnectionFlag()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await var buffer in clientInbound {
                            var request = String(buffer: buffer)
                            let faults = self.faults.withLock { $0 }
                            // A chunk that starts a request line (keep-alive requests come one
                            // after the other, each in its chunk, from the clients under test).
                            if request.hasPrefix("GET ") || request.hasPrefix("HEAD ") || request.hasPrefix("POST ") {
                                self.requestLines.withLock { $0.append(String(request.prefix { $0 != "\r" })) }
                            }
                            if request.hasPrefix("GET /blobs/") || request.hasPrefix("GET /packs/") { isBlob.set() }
                            if let trickle = faults.trickle, request.hasPrefix("GET \(trickle.pathPrefix)") { trickles.set() }
                            if let part = faults.tamper, request.prefix(while: { $0 != "\r" }).contains(part) { tampers.set() }
                            if faults.dropsMultipleRanges {
                                request = Self.withoutMultipleRanges(request)
                                buffer = ByteBuffer(string: request)
                            }
                            try await upstreamOutbound.write(buffer)
                        }
                    }
                    group.addTask {
                        var cutAfter: Int?
                        var forwarded = 0
                        // Body bytes until the one to alter, once a tampered response's header ended.
                        var untilTampered: Int?
                        for try await var buffer in upstreamInbound {
                            if tampers.value {
                                if untilTampered == nil, let end = buffer.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) {
                                    untilTampered = end.upperBound - buffer.readerIndex + Self.tamperedOffset
                                }
                                if let at = untilTampered {
                                    if at < buffer.readableBytes, let byte = buffer.getInteger(at: buffer.readerIndex + at, as: UInt8.self) {
                                        buffer.setInteger(Self.tampered(byte), at: buffer.readerIndex + at)
                                        untilTampered = .max
                                    } else if at != .max {
                                        untilTampered = at - buffer.readableBytes
                                    }
                                }
                            }
                            if self.faults.withLock({ $0.severed }) { throw CancellationError() }
                            let faults = isBlob.value ? self.faults.withLock { $0 } : Faults()
                            if cutAfter == nil, isBlob.value, let cut = faults.cutAfter {
                                cutAfter = cut
                                self.faults.withLock { $0.cutAfter = nil }
                            }
                            if let delay = faults.delayPerChunk {
                                try await Task.sleep(for: delay)
                                if self.faults.withLock({ $0.severed }) { throw CancellationError() }
                            }
                            if let cut = cutAfter, forwarded + buffer.readableBytes >= cut {
                                if let part = buffer.readSlice(length: max(0, cut - forwarded)) { try await clientOutbound.write(part) }
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
