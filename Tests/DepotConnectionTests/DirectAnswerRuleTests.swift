import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Testing

@testable import DepotConnection

/// The rule for what ``DirectResponder`` answers itself, as a table, and the connection's
/// pipeline as ``DepotHTTP1Channel`` builds it.
@Suite("Direct answer rule and the connection's pipeline")
struct DirectAnswerRuleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let version: HTTPVersion
        let method: HTTPMethod
        let fields: [(String, String)]
        let answered: Bool
        var testDescription: String { "\(method) HTTP/\(version.major).\(version.minor) \(fields.map(\.0)) → \(answered)" }
    }

    static let requests: [Case] = [
        Case(version: .http1_1, method: .GET, fields: [], answered: true),
        Case(version: .http1_1, method: .HEAD, fields: [("Range", "bytes=0-1")], answered: true),
        Case(version: .http1_1, method: .GET, fields: [("If-None-Match", "\"a\"")], answered: true),
        Case(version: .http1_0, method: .GET, fields: [], answered: false),
        Case(version: .http1_1, method: .POST, fields: [], answered: false),
        Case(version: .http1_1, method: .PUT, fields: [], answered: false),
        Case(version: .http1_1, method: .OPTIONS, fields: [], answered: false),
        Case(version: .http1_1, method: .GET, fields: [("Connection", "close")], answered: false),
        Case(version: .http1_1, method: .GET, fields: [("connection", "keep-alive")], answered: false),
        Case(version: .http1_1, method: .GET, fields: [("Expect", "100-continue")], answered: false),
        Case(version: .http1_1, method: .GET, fields: [("A-IM", "vcdiff")], answered: false),
    ]

    @Test("which requests are answered directly", arguments: requests)
    func requestRule(_ request: Case) {
        let head = HTTPRequestHead(version: request.version, method: request.method, uri: "/a", headers: HTTPHeaders(request.fields))
        #expect(DirectAnswerRule.mayAnswer(head) == request.answered)
    }

    static func configuration(maximum: Int) -> DepotHTTP1Channel.Configuration {
        DepotHTTP1Channel.Configuration(
            decoderLimits: NIOHTTPDecoderLimitConfiguration(),
            limits: ConnectionLimits(maxConnections: maximum),
            connections: OpenConnections(maximum: maximum),
            direct: nil,
            accessLog: nil,
            logger: Logger(label: "test")
        )
    }

    /// Where each of `names` first appears in the pipeline's description, which lists its
    /// handlers socket end first.
    static func positions(of names: [String], in channel: EmbeddedChannel) -> [Int?] {
        let description = channel.pipeline.debugDescription
        return names.map { name in description.range(of: name).map { description.distance(from: description.startIndex, to: $0.lowerBound) } }
    }

    @Test("the connection's pipeline is built in order: Depot's handlers where they belong")
    func pipelineOrder() throws {
        let channel = EmbeddedChannel()
        let builder = DepotHTTP1Channel(responder: { _, _, _ in }, configuration: Self.configuration(maximum: 4))
        try builder.configure(channel.pipeline.syncOperations, channel: channel)
        let expected = [
            "ConnectionActivityHandler", "HTTPResponseEncoder", "ByteToMessageHandler", "ConnectionDeadlineHandler",
            "DirectResponder", "HTTP1ToHTTPServerCodec", "DateStampHandler", "HTTPConnectionStateHandler",
        ]
        let positions = Self.positions(of: expected, in: channel)
        #expect(
            positions.allSatisfy { $0 != nil } && positions.map { $0 ?? 0 } == positions.map { $0 ?? 0 }.sorted(),
            "\(channel.pipeline.debugDescription)"
        )
    }

    @Test("over the connection limit, the pipeline is only the 503")
    func overLimit() throws {
        let configuration = Self.configuration(maximum: 1)
        #expect(configuration.connections.open())
        let channel = EmbeddedChannel()
        let builder = DepotHTTP1Channel(responder: { _, _, _ in }, configuration: configuration)
        try builder.configure(channel.pipeline.syncOperations, channel: channel)
        #expect(throws: Never.self) { try channel.pipeline.syncOperations.handler(type: OverLimitResponder.self) }
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.handler(type: ConnectionActivityHandler.self) }
    }
}
