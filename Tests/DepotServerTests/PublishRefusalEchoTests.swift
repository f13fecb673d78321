import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// A refused publish (``PublisherError``) names what it refused, but never echoes the request's
/// bytes whole or raw: a 100 KB path with control characters in a commit gets a short 400 whose
/// message is one line. In process: the mapping of the refusal is the subject.
@Suite("Publish refusals do not echo the request")
struct PublishRefusalEchoTests {
    /// 100 KB of folders then control characters; a letter with 50,000 combining marks (one
    /// character of 100 KB).
    static let hostilePaths = [
        String(repeating: "d/", count: 50_000) + "x\n\u{1B}[2J\u{1B}]0;owned\u{07}\r.txt",
        "e" + String(repeating: "\u{301}", count: 50_000) + ".txt",
    ]

    @Test(
        "a commit with a 100 KB hostile path, to add or to delete, is a short 400 of one line",
        arguments: [false, true],
        hostilePaths
    )
    func hostilePath(deleting: Bool, path: String) async throws {
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                let reply =
                    deleting
                    ? try await connection.json("POST", "/v1/releases", CommitRequest(delete: [path]))
                    : try await connection.commit([(path, Data("x".utf8))])
                #expect(reply.status == 400, "\(reply.status) \(reply.bodyText.prefix(200))")
                #expect(reply.body.count <= 1_000, "the refusal echoes the path: \(reply.body.count) bytes")
                let message = try JSONDecoder().decode([String: [String: String]].self, from: Data(reply.body))["error"]?["message"] ?? ""
                #expect(!message.isEmpty, "\(reply.bodyText.prefix(200))")
                #expect(!message.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(message.suffix(200).debugDescription)")
            }
        }
    }
}
