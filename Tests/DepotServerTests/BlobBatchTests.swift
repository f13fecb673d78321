import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// `POST /v1/blobs`: many small blobs in one request, stored whole or not at all.
@Suite("Blob batches")
struct BlobBatchTests {
    static let auth = PublishToken.authorization
    @Test("the parser reads members across any chunking, and refuses what is not a batch")
    func parser() throws {
        let members = [Fixture.batchMember(String(repeating: "compressible text ", count: 100)), Fixture.batchMember(""), Fixture.batchMember("x")]
        let body = Fixture.blobBatch(members)
        for chunk in [1, 7, 64, 65, 66, body.count] {
            var parser = BlobBatch.Parser(maximumMemberBytes: 4096)
            var read: [BlobBatch.Member] = []
            for start in stride(from: 0, to: body.count, by: chunk) {
                read += try body[start..<min(start + chunk, body.count)].withUnsafeBytes { try parser.feed($0) }
            }
            try parser.finish()
            #expect(read.map(\.sha256) == members.map(\.sha256), "chunks of \(chunk)")
            #expect(read.map { Data($0.bytes) } == members.map(\.bytes))
        }
        let sha = String(repeating: "a", count: 64)
        let refused: [(String, [UInt8])] = [
            ("no length", Array("\(sha)\n".utf8)),
            ("upper-case hex", Array("\(sha.uppercased()) 1\nx".utf8)),
            ("short hash", Array("abc 1\nx".utf8)),
            ("leading zero", Array("\(sha) 01\nx".utf8)),
            ("negative", Array("\(sha) -1\nx".utf8)),
            ("a header without end", Array(repeating: UInt8(ascii: "a"), count: 200)),
        ]
        for (name, body) in refused {
            var parser = BlobBatch.Parser(maximumMemberBytes: 4096)
            #expect(throws: BlobBatch.FormatError.self, "\(name)") { _ = try body.withUnsafeBytes { try parser.feed($0) } }
        }
        var small = BlobBatch.Parser(maximumMemberBytes: 4096)
        #expect(throws: BlobBatch.MemberTooLarge(size: 4097)) { _ = try Array("\(sha) 4097\n".utf8).withUnsafeBytes { try small.feed($0) } }
        var cut = BlobBatch.Parser(maximumMemberBytes: 4096)
        _ = try Array("\(sha) 5\nabc".utf8).withUnsafeBytes { try cut.feed($0) }
        #expect(throws: BlobBatch.FormatError.self) { try cut.finish() }
    }

    @Test("a batch is stored with gzip variants and a commit can name its blobs")
    func storedAndCommitted() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                let members = (0..<50).map { Fixture.batchMember("file \($0) " + String(repeating: "text ", count: $0 * 20)) }
                let stored = try await connection.request(
                    "POST",
                    "/v1/blobs",
                    headers: [Self.auth, Fixture.blobBatchContentType],
                    body: Fixture.blobBatch(members)
                )
                #expect(stored.status == 201)
                #expect(try APIJSON.decode(BlobBatchReply.self, from: stored.body).stored == 50)
                let commit = CommitRequest(files: members.enumerated().map { .init(path: "f\($0.offset).txt", sha256: $0.element.sha256) })
                let committed = try await connection.request(
                    "POST",
                    "/v1/releases",
                    headers: [Self.auth, ("Content-Type", "application/json")],
                    body: Array(try APIJSON.encoder.encode(commit))
                )
                #expect(committed.status == 201)
                let entries = try await connection.releaseFiles()
                #expect(entries.count == 50)
                let large = try #require(entries.first { $0["path"] as? String == "f49.txt" })
                #expect((large["gzip"] as? [String: Any])?["size"] != nil, "a compressible blob has its gzip variant")
                let body = try await connection.request("GET", "/blobs/\(members[49].sha256)").body
                #expect(Data(body) == members[49].bytes)
            }
            #expect(try Fixture.temporaryFiles(in: server.dataDirectory).isEmpty)
        }
    }

    @Test("publish.maxUploadBytes holds for each blob of a batch, publish.maxBatchBytes for the whole: 413 beyond either")
    func limits() async throws {
        let configuration = ServerConfiguration(publish: .init(maxUploadBytes: 500, maxBatchBytes: 2_000))
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            let small = (0..<2).map { Fixture.batchMember(String(repeating: "\($0)", count: 400)) }
            let cases: [(name: String, members: [(sha256: String, bytes: Data)], status: Int)] = [
                ("two blobs of 400 bytes: more than 500 together, each under it", small, 201),
                ("a blob of 600 bytes", [Fixture.batchMember(String(repeating: "x", count: 600))], 413),
                ("a body over publish.maxBatchBytes", (0..<6).map { Fixture.batchMember(String(repeating: "y\($0)", count: 200)) }, 413),
            ]
            for (name, members, status) in cases {
                let response = try await server.connection { connection in
                    try await connection.request(
                        "POST",
                        "/v1/blobs",
                        headers: [Self.auth, Fixture.blobBatchContentType],
                        body: Fixture.blobBatch(members)
                    )
                }
                #expect(response.status == status, "\(name)")
            }
            #expect(try Fixture.temporaryFiles(in: server.dataDirectory).isEmpty)
        }
    }

    @Test("a bad batch is refused whole: nothing of it is stored")
    func refusedWhole() async throws {
        let configuration = ServerConfiguration(publish: .init(maxBatchBlobBytes: 1000, maxBatchBlobs: 3))
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            let good = Fixture.batchMember("good")
            let lying = (sha256: Fixture.sha256(Data("other".utf8)), bytes: Data("lie".utf8))
            let cases: [(name: String, headers: [(String, String)], body: [UInt8], status: Int)] = [
                ("a digest mismatch", [Self.auth, Fixture.blobBatchContentType], Fixture.blobBatch([good, lying]), 400),
                (
                    "a blob over publish.maxBatchBlobBytes", [Self.auth, Fixture.blobBatchContentType],
                    Fixture.blobBatch([good, Fixture.batchMember(String(repeating: "x", count: 1001))]), 400
                ),
                (
                    "more than publish.maxBatchBlobs", [Self.auth, Fixture.blobBatchContentType],
                    Fixture.blobBatch([good] + (0..<3).map { Fixture.batchMember("\($0)") }), 400
                ),
                ("a body cut inside a blob", [Self.auth, Fixture.blobBatchContentType], Array(Fixture.blobBatch([good]).dropLast()), 400),
                ("another media type", [Self.auth, ("Content-Type", "application/octet-stream")], Fixture.blobBatch([good]), 415),
                ("no token", [Fixture.blobBatchContentType], Fixture.blobBatch([good]), 401),
            ]
            for (name, headers, body, status) in cases {
                let response = try await server.connection { connection in
                    try await connection.request("POST", "/v1/blobs", headers: headers, body: body)
                }
                #expect(response.status == status, "\(name)")
                #expect(
                    !FileManager.default.fileExists(
                        atPath: server.dataDirectory.appendingPathComponent("blobs/\(good.sha256.prefix(2))/\(good.sha256)").path
                    ),
                    "\(name)"
                )
                #expect(try Fixture.temporaryFiles(in: server.dataDirectory).isEmpty, "\(name)")
            }
        }
    }
}
