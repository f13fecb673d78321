import DepotTestSupport
import Foundation
import Testing

/// Plain GET and HEAD (RFC 9110 §9.3.1, §9.3.2, §8.8, §12.5.3, §15.5.6), in process: the
/// direct path gives the same answers (DirectResponderTests); what the connection adds (`Date`, a
/// 304 with no `Content-Length`, chunked framing, streaming) is ConnectionStreamingTests'.
@Suite("Serving files")
struct FileServingTests {

    @Test("GET sends the exact bytes with validators and metadata")
    func getIdentity() async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", "/text.txt")
                #expect(response.status == 200)
                #expect(Data(response.body) == Fixture.text)
                #expect(response.header("ETag") == "\"\(Fixture.sha256(Fixture.text))\"")
                #expect(response.header("Last-Modified") == Fixture.standardLastModified)
                #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
                #expect(response.header("Content-Length") == "\(Fixture.text.count)")
                #expect(response.header("Accept-Ranges") == "bytes")
                #expect(response.header("Cache-Control") == "no-cache")
                #expect(response.header("Vary") == "Accept-Encoding")
                #expect(response.header("Content-Encoding") == nil)
                // Its Date is the connection's: ConnectionStreamingTests.notModifiedFields.
            }
        }
    }

    @Test("gzip is negotiated, with its own strong ETag and Vary")
    func getGzip() async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", "/text.txt", headers: [("Accept-Encoding", "br;q=1, gzip;q=0.9")])
                #expect(response.status == 200)
                #expect(response.header("Content-Encoding") == "gzip")
                #expect(response.header("Vary") == "Accept-Encoding")
                #expect(response.body.count < Fixture.text.count / 5)
                #expect(try Fixture.gunzip(response.body) == Fixture.text)
                #expect(response.header("ETag") == "\"\(Fixture.sha256(response.body))\"")
                #expect(response.header("ETag") != "\"\(Fixture.sha256(Fixture.text))\"")

                let refused = try await connection.request("GET", "/text.txt", headers: [("Accept-Encoding", "gzip;q=0")])
                #expect(refused.header("Content-Encoding") == nil)
                #expect(Data(refused.body) == Fixture.text)
                #expect(refused.header("Vary") == "Accept-Encoding")
            }
        }
    }

    @Test("incompressible content has no gzip variant and no Vary")
    func incompressible() async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", "/noise.bin", headers: [("Accept-Encoding", "gzip")])
                #expect(response.status == 200)
                #expect(Data(response.body) == Fixture.noise)
                #expect(response.header("Content-Encoding") == nil)
                #expect(response.header("Vary") == nil)
                #expect(response.header("Content-Type") == "application/octet-stream")
            }
        }
    }

    @Test("HEAD sends the same fields as GET and no content (§9.3.2)", arguments: ["identity", "gzip"])
    func head(encoding: String) async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let get = try await connection.request("GET", "/text.txt", headers: [("Accept-Encoding", encoding)])
                let head = try await connection.request("HEAD", "/text.txt", headers: [("Accept-Encoding", encoding)])
                #expect(head.status == 200)
                let withoutDate = { (response: RawHTTPResponse) in
                    response.fields.filter { !["date", "x-request-id"].contains($0.name.lowercased()) }.map { "\($0.name.lowercased()): \($0.value)" }
                }
                #expect(withoutDate(head) == withoutDate(get))
                // The connection is still in step: the next response is read whole.
                let after = try await connection.request("GET", "/index.html")
                #expect(after.bodyText == "<h1>home</h1>\n")
            }
        }
    }

    @Test("other methods get 405 with Allow (§15.5.6)", arguments: ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
    func methodNotAllowed(method: String) async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let response = try await connection.request(method, "/text.txt", headers: [("Content-Length", "0")])
                #expect(response.status == 405)
                #expect(response.header("Allow") == "GET, HEAD")
                #expect(response.bodyText.contains("GET and HEAD"))
            }
        }
    }

    static func folderWithIndexes(_ folder: URL) throws {
        try folder.write(Data("root\n".utf8), to: "index.html")
        try folder.write(Data("docs\n".utf8), to: "docs/index.html")
    }

    @Test("/ and folder paths serve index.html")
    func index() async throws {
        try await InProcessServer.with(prepare: Self.folderWithIndexes) { server in
            try await server.connection { connection in
                #expect(try await connection.request("GET", "/").bodyText == "root\n")
                #expect(try await connection.request("GET", "/docs/").bodyText == "docs\n")
                #expect(try await connection.request("GET", "/docs/index.html").bodyText == "docs\n")
                let folder = try await connection.request("GET", "/docs")
                #expect(folder.status == 404)
            }
        }
    }

    static func folderWithEmptyFile(_ folder: URL) throws {
        try folder.write(Data(), to: "empty.txt")
    }

    @Test("an empty file is served with Content-Length 0")
    func emptyFile() async throws {
        try await InProcessServer.with(prepare: Self.folderWithEmptyFile) { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", "/empty.txt")
                #expect(response.status == 200)
                #expect(response.header("Content-Length") == "0")
                #expect(response.header("ETag") == "\"\(Fixture.sha256(Data()))\"")
                let range = try await connection.request("GET", "/empty.txt", headers: [("Range", "bytes=0-")])
                #expect(range.status == 416)
                #expect(range.header("Content-Range") == "bytes */0")
            }
        }
    }
}
