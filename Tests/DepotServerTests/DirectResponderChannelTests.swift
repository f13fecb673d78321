import DepotHTTP
import DepotStore
import DepotTestSupport
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
import _NIOFileSystem

@testable import DepotConnection
@testable import DepotServer

/// ``DirectResponder`` in a pipeline, on `EmbeddedChannel`: what reaches Hummingbird, what is
/// answered, and when a close happens. A ``WriteGate`` below it plays a socket that has not sent
/// the bytes yet.
@Suite("Direct responder on EmbeddedChannel")
struct DirectResponderChannelTests {
    /// Holds back the completion of every write until ``release()``, as a full socket does.
    final class WriteGate: ChannelOutboundHandler {
        typealias OutboundIn = HTTPServerResponsePart
        private(set) var held: [EventLoopPromise<Void>] = []
        private(set) var written: [HTTPServerResponsePart] = []

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            written.append(unwrapOutboundIn(data))
            if let promise { held.append(promise) }
            context.write(data, promise: nil)
        }

        func release() {
            let promises = held
            held = []
            for promise in promises { promise.succeed() }
        }
    }

    static func head(_ uri: String, _ headers: [(String, String)] = []) -> HTTPServerRequestPart {
        .head(HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: HTTPHeaders(headers)))
    }

    /// A channel with `responder` above a ``WriteGate``.
    static func channel(_ responder: DirectResponder) throws -> (EmbeddedChannel, WriteGate) {
        let gate = WriteGate()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([gate, responder])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, gate)
    }

    /// Hummingbird's answer, as it reaches the responder from above.
    static func answerAsHummingbird(_ channel: EmbeddedChannel) {
        channel.write(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)), promise: nil)
        channel.write(HTTPServerResponsePart.end(nil), promise: nil)
        channel.flush()
    }

    @Test("close after drain: a close waits until the last answer is written, then closes")
    func closeAfterDrain() throws {
        let (channel, gate) = try Self.channel(DirectResponder(configuration: nil, files: nil))
        try channel.writeInbound(Self.head("/a"))
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) != nil)
        Self.answerAsHummingbird(channel)
        let closed = channel.close()
        channel.embeddedEventLoop.run()
        #expect(channel.isActive)
        gate.release()
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
        try closed.wait()
    }

    @Test("shutdown: a second close closes at once, and so does the timeout")
    func shutdown() throws {
        let (channel, _) = try Self.channel(DirectResponder(configuration: nil, files: nil))
        try channel.writeInbound(Self.head("/a"))
        Self.answerAsHummingbird(channel)
        let first = channel.close()
        channel.embeddedEventLoop.run()
        #expect(channel.isActive)
        channel.close(promise: nil)
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
        try first.wait()

        let (slow, _) = try Self.channel(DirectResponder(configuration: nil, files: nil, drainTimeout: .seconds(5)))
        try slow.writeInbound(Self.head("/a"))
        Self.answerAsHummingbird(slow)
        slow.close(promise: nil)
        slow.embeddedEventLoop.advanceTime(by: .seconds(4))
        #expect(slow.isActive)
        slow.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!slow.isActive)
    }

    @Test("backpressure: requests that arrive while the socket is full wait, and go on in order once it drains")
    func backpressure() throws {
        let (channel, _) = try Self.channel(DirectResponder(configuration: nil, files: nil))
        channel.isWritable = false
        try channel.writeInbound(Self.head("/a"))
        try channel.writeInbound(Self.head("/b"))
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == nil)
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        let uris = try [channel.readInbound(as: HTTPServerRequestPart.self), channel.readInbound(as: HTTPServerRequestPart.self)].map {
            if case .head(let head) = $0 { head.uri } else { "" }
        }
        #expect(uris == ["/a", "/b"])
        _ = try channel.finish()
    }

    @Test("pipelining: a request behind one Hummingbird has not answered goes to Hummingbird too; after its end, answers are direct")
    func pipelining() async throws {
        try await withDirectConfiguration { configuration in
            let responder = DirectResponder(configuration: configuration, files: OpenFileCache(capacity: 0))
            let (channel, gate) = try Self.channel(responder)
            // A refusal (412) goes to Hummingbird; the plain GET behind it must follow it there.
            try channel.writeInbound(Self.head("/a.txt", [("If-Match", "\"nope\"")]))
            try channel.writeInbound(Self.head("/a.txt"))
            #expect(try channel.readInbound(as: HTTPServerRequestPart.self) != nil)
            #expect(try channel.readInbound(as: HTTPServerRequestPart.self) != nil)
            #expect(gate.written.isEmpty)
            Self.answerAsHummingbird(channel)
            Self.answerAsHummingbird(channel)
            // Nothing owed now: this one is answered below Hummingbird.
            try channel.writeInbound(Self.head("/a.txt"))
            #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == nil)
            guard case .head(let head) = gate.written.dropFirst(4).first else {
                Issue.record("no direct answer")
                return
            }
            #expect(head.status == .ok && head.headers["Content-Length"] == ["5"])
            // The close waits for that direct answer too.
            channel.close(promise: nil)
            channel.embeddedEventLoop.run()
            #expect(channel.isActive)
            gate.release()
            channel.embeddedEventLoop.run()
            #expect(!channel.isActive)
        }
    }

    /// A real configuration: a public folder holding `a.txt` ("hello"), an empty catalog.
    func withDirectConfiguration(_ body: (DirectAnswerConfiguration) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let site = folder.appendingPathComponent("public")
            try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
            _ = try site.write(Data("hello".utf8), to: "a.txt")
            let logger = Logger(label: "test")
            let data = FilePath(folder.appendingPathComponent("data").path)
            let store = try await BlobStore.open(dataDirectory: data, logger: logger)
            let publicSite = PublicSite(
                directory: try PublicDirectory(path: site.path, store: store),
                store: store,
                cacheControl: CacheControlPolicy(defaultValue: "no-cache")
            )
            try await publicSite.refresh(logger: logger)
            let catalog = try Catalog(path: data.appending("catalog.sqlite").string)
            let content = PublishedContent(catalog: catalog, store: store, cachePolicy: .init())
            try await body(
                DirectAnswerConfiguration(
                    source: ResourceDirectAnswers(
                        resolver: ContentResolver(content: content, site: publicSite),
                        routedSegments: ["files", "blobs", "manifest.json", "v1"],
                        responder: ResourceResponder(),
                        recorder: ResponseRecorder(counter: nil, metrics: DepotMetrics())
                    ),
                    serverName: nil,
                    openFiles: OpenFileCaches(capacity: 0, idleTime: .seconds(10), logger: logger),
                    requestID: { "test" }
                )
            )
        }
    }
}
