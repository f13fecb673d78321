import Crypto
import DepotServer
import DepotTestSupport
import Foundation
import Synchronization
import Testing

/// The server reads published content from the catalog when a request first names it and keeps
/// it in a bounded cache (`http.resourceCacheEntries`); every change (publish, delete, release,
/// rollback) drops what it made stale, so no request is ever answered from before a change it
/// follows. In process: the cache is the application's.
@Suite("Published content cache")
struct PublishedContentCacheTests {
    static let auth = ("Authorization", "Bearer \(PublishToken.secret)")

    static func sha256(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The file and its SHA-256 sidecar, each asked twice: the second answer comes from the cache
    /// (the direct path reads that cache too: its answers are DirectResponderTests').
    static func served(_ connection: inout InProcessConnection, _ path: String) async throws -> [String] {
        var answers: [String] = []
        for target in ["/files/\(path)", "/files/\(path)", "/files/\(path).sha256", "/files/\(path).sha256"] {
            let response = try await connection.request("GET", target)
            answers.append(response.status == 200 ? response.bodyText.trimmingCharacters(in: .newlines) : "\(response.status)")
        }
        return answers
    }

    @Test("every change is seen at once: publish, re-publish, rollback, release and delete")
    func changesAreSeen() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                func put(_ path: String, _ text: String) async throws {
                    #expect(try await connection.request("PUT", "/v1/files/\(path)", headers: [Self.auth], body: Array(text.utf8)).status == 201)
                }
                try await put("a.txt", "one")
                #expect(try await Self.served(&connection, "a.txt") == ["one", "one", Self.sha256("one"), Self.sha256("one")])
                try await put("a.txt", "two")
                #expect(try await Self.served(&connection, "a.txt") == ["two", "two", Self.sha256("two"), Self.sha256("two")])

                let rollback = try await connection.request("POST", "/v1/channels/stable/rollback", headers: [Self.auth])
                #expect(rollback.status == 200)
                #expect(try await Self.served(&connection, "a.txt") == ["one", "one", Self.sha256("one"), Self.sha256("one")])

                // A release that deletes the file and adds another.
                let three = Array("three".utf8)
                #expect(try await connection.request("PUT", "/v1/blobs/\(Self.sha256("three"))", headers: [Self.auth], body: three).status == 201)
                let commit = #"{"files": [{"path": "b.txt", "sha256": "\#(Self.sha256("three"))"}], "delete": ["a.txt"]}"#
                #expect(try await connection.request("POST", "/v1/releases", headers: [Self.auth], body: Array(commit.utf8)).status == 201)
                #expect(try await Self.served(&connection, "a.txt") == ["404", "404", "404", "404"])
                #expect(try await Self.served(&connection, "b.txt") == ["three", "three", Self.sha256("three"), Self.sha256("three")])

                #expect(try await connection.request("DELETE", "/v1/files/b.txt", headers: [Self.auth]).status == 204)
                #expect(try await Self.served(&connection, "b.txt") == ["404", "404", "404", "404"])
            }
        }
    }

    @Test("with room for two resources, many files are still each served right")
    func tinyCache() async throws {
        try await InProcessServer.withPublishing(configuration: ServerConfiguration(resourceCacheEntries: 2)) { server in
            try await server.connection { connection in
                for index in 0..<12 {
                    let reply = try await connection.request("PUT", "/v1/files/f\(index)", headers: [Self.auth], body: Array("file \(index)".utf8))
                    #expect(reply.status == 201)
                }
                for _ in 0..<2 {
                    for index in (0..<12).shuffled() {
                        let answers = try await Self.served(&connection, "f\(index)")
                        #expect(answers == Array(repeating: "file \(index)", count: 2) + Array(repeating: Self.sha256("file \(index)"), count: 2))
                    }
                }
            }
        }
    }

    @Test("requests racing publishes never leave an old version cached")
    func racingPublishes() async throws {
        // Room for two: the readers' four URLs push each other out, so lookups of the catalog
        // are under way whenever a publish commits.
        try await InProcessServer.withPublishing(configuration: ServerConfiguration(resourceCacheEntries: 2)) { server in
            try await withThrowingTaskGroup { group in
                let stop = ManagedAtomicFlag()
                for _ in 0..<4 {
                    group.addTask {
                        try await server.connection { connection in
                            while !stop.isSet {
                                for target in ["/files/race.txt", "/files/race.txt.md5", "/files/race.txt.sha256", "/files/other.txt"] {
                                    _ = try await connection.request("GET", target)
                                }
                            }
                        }
                    }
                }
                try await server.connection { connection in
                    for round in 0..<100 {
                        let text = "round \(round)"
                        let reply = try await connection.request("PUT", "/v1/files/race.txt", headers: [Self.auth], body: Array(text.utf8))
                        #expect(reply.status == 201)
                        #expect(try await connection.request("GET", "/files/race.txt").bodyText == text)
                        #expect(try await connection.request("GET", "/files/race.txt.sha256").bodyText == Self.sha256(text) + "\n")
                    }
                }
                stop.set()
                try await group.waitForAll()
            }
        }
    }
}

/// A flag one task sets and others read.
final class ManagedAtomicFlag: Sendable {
    private let value = Synchronization.Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
