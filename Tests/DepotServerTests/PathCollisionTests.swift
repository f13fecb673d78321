import DepotAPI
import DepotMigrations
import DepotServer
import DepotStore
import DepotTestSupport
import Foundation
import GRDB
import Testing
import _NIOFileSystem

/// One rule for what a published path may be (``PortablePath``): Unicode spellings of one name
/// are one file, names a client's file system would merge are refused, and a catalog that
/// already holds such rows starts. API behaviour: in process, through the router, the catalog
/// written by an older Depot too (the application starts on it as a server does).
@Suite("Path collisions")
struct PathCollisionTests {
    static let auth = PublishToken.authorization

    @Test("NFC and NFD spellings of a name publish one file; the server keeps answering")
    func unicodeSpellings() async throws {
        try await InProcessConnection.withPublishing { connection in
            let nfc = try await connection.request("PUT", "/v1/files/caf%C3%A9.txt", headers: [Self.auth], body: Array("one".utf8))
            #expect(nfc.status == 201)
            let nfd = try await connection.request("PUT", "/v1/files/cafe%CC%81.txt", headers: [Self.auth], body: Array("two".utf8))
            #expect(nfd.status == 201)
            let reply = try nfd.decoded(PublishReply.self)
            #expect(reply.version == 2)
            #expect(reply.path == "caf\u{E9}.txt")
            let files = try await connection.releaseFiles()
            #expect(files.count == 1)
            // The stored path is NFC, byte for byte.
            #expect((files.first?["path"] as? String).map { Array($0.utf8) } == Array("caf\u{E9}.txt".utf8))
            #expect(try await connection.request("GET", "/files/cafe%CC%81.txt").bodyText == "two")
            #expect(try await connection.request("GET", "/files/caf%C3%A9.txt").bodyText == "two")
        }
    }

    @Test(
        "a path that a client's file system would merge with a live one gets 409 and changes nothing",
        arguments: [
            ("Readme.txt", "README.txt"),
            ("caf%C3%A9.txt", "CAF%C3%89.txt"),
            ("a", "a/b"),
            ("a/b", "a"),
            ("Dir/x", "dir"),
            ("a/b", "A/B"),
        ]
    )
    func collisions(first: String, second: String) async throws {
        try await InProcessConnection.withPublishing { connection in
            #expect(try await connection.request("PUT", "/v1/files/\(first)", headers: [Self.auth], body: Array("1".utf8)).status == 201)
            let before = try await connection.request("GET", "/manifest.json").bodyText
            let refused = try await connection.request("PUT", "/v1/files/\(second)", headers: [Self.auth], body: Array("2".utf8))
            #expect(refused.status == 409, "\(refused.bodyText)")
            #expect(refused.bodyText.contains("live"))
            #expect(try await connection.request("GET", "/manifest.json").bodyText == before)
        }
    }

    @Test("paths some client cannot write get 400", arguments: [".depot/state.json", ".DePoT/x", "a/" + String(repeating: "x", count: 256)])
    func unwritable(path: String) async throws {
        try await InProcessConnection.withPublishing { connection in
            let refused = try await connection.request("PUT", "/v1/files/\(path)", headers: [Self.auth], body: Array("1".utf8))
            #expect(refused.status == 400)
            #expect(refused.bodyText.contains("cannot be written by every client"))
        }
    }

    @Test("a segment that starts with a combining mark is published, listed with a URL that serves it, and synced")
    func combiningMarkAfterSlash() async throws {
        try await InProcessConnection.withPublishing { connection in
            let reply = try await connection.request("PUT", "/v1/files/a/%E2%83%ABt.txt", headers: [Self.auth], body: Array("mark".utf8))
            #expect(reply.status == 201)
            #expect((try await connection.releaseFiles()).first?["path"] as? String == "a/\u{20EB}t.txt")
            let url = try #require(reply.header("Location"))
            #expect(url == "/files/a/%E2%83%ABt.txt")
            #expect(try await connection.request("GET", url).bodyText == "mark")
        }
    }

    @Test("a 255-byte segment is accepted")
    func longestSegment() async throws {
        try await InProcessConnection.withPublishing { connection in
            let path = String(repeating: "x", count: 255)
            let reply = try await connection.request("PUT", "/v1/files/\(path)", headers: [Self.auth], body: Array("1".utf8))
            #expect(reply.status == 201)
        }
    }

    @Test("a catalog holding one name in two Unicode spellings (written before paths were normalized) starts and serves")
    func legacyCatalog() async throws {
        try await withTemporaryDirectory { data in
            let path = data.appendingPathComponent("catalog.sqlite").path
            // Written the way an older Depot wrote it: the schema before releases, and two live
            // rows, NFC and NFD.
            let schema = try DatabaseQueue(path: path)
            try await schema.write { db in
                try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
                for migration in CatalogMigrations.all.prefix(3) {
                    try db.execute(sql: migration.sql)
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.identifier])
                }
            }
            try schema.close()
            let store = try await BlobStore.open(dataDirectory: .init(data.path))
            for (name, text) in [("caf\u{E9}.txt", "nfc"), ("cafe\u{301}.txt", "nfd")] {
                let blob = try await store.ingest(contentsOf: .init(try data.write(Data(text.utf8), to: "source-\(text)").path))
                let queue = try DatabaseQueue(path: path)
                try await queue.write { db in
                    try db.execute(
                        sql: """
                            INSERT INTO file_version (path, version, size, sha256, md5, content_type, published_at, last_modified_is_strong)
                            VALUES (?, 1, ?, ?, ?, 'text/plain', ?, 1)
                            """,
                        arguments: [name, blob.size, blob.sha256, blob.md5, text == "nfc" ? 1_700_000_000 : 1_700_000_100]
                    )
                    try db.execute(sql: "INSERT INTO live_file (path, version) VALUES (?, 1)", arguments: [name])
                    try db.execute(sql: "INSERT INTO path_sequence (path, last_version) VALUES (?, 1)", arguments: [name])
                }
                try queue.close()
            }
            try await InProcessServer.withDataDirectory(data, configuration: .init(publish: .init(tokens: [PublishToken.secret]))) { server in
                try await server.connection { connection in
                    // One of the two rows is served (the newer), by either spelling.
                    #expect(try await connection.request("GET", "/files/caf%C3%A9.txt").bodyText == "nfd")
                    // Publishing the name again continues the stored spelling instead of adding a third row.
                    let again = try await connection.request("PUT", "/v1/files/caf%C3%A9.txt", headers: [Self.auth], body: Array("new".utf8))
                    #expect(again.status == 201)
                    #expect((try await connection.releaseFiles()).count == 2)
                    #expect(try await connection.request("GET", "/readyz").status == 200)
                }
            }
        }
    }
}
