import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// One connection carries every kind of answer (RFC 9112 §9.3): after bodiless and partial
/// responses the framing stays in step and the server keeps the connection open.
@Suite("Keep-alive")
struct KeepAliveTests {
    @Test("304, 206, 416, HEAD, 412, 405 and 404 all keep the connection")
    func everyAnswerKeepsTheConnection() async throws {
        let etag = "\"\(Fixture.sha256(Fixture.text))\""
        try await LiveServer.standard { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                let sequence: [(String, String, [(String, String)], Int)] = [
                    ("GET", "/text.txt", [("If-None-Match", etag)], 304),
                    ("GET", "/text.txt", [("Range", "bytes=0-9")], 206),
                    ("GET", "/text.txt", [("Range", "bytes=0-9,20-29")], 206),
                    ("GET", "/text.txt", [("Range", "bytes=999999-")], 416),
                    ("HEAD", "/text.txt", [], 200),
                    ("HEAD", "/text.txt", [("If-None-Match", etag)], 304),
                    ("GET", "/text.txt", [("If-Match", "\"x\"")], 412),
                    ("DELETE", "/text.txt", [], 405),
                    ("GET", "/missing", [], 404),
                ]
                for (method, target, headers, status) in sequence {
                    let response = try await connection.request(method, target, headers: headers)
                    #expect(response.status == status, "\(method) \(target) \(headers)")
                    #expect(response.header("Connection") != "close")
                }
                let last = try await connection.request("GET", "/text.txt")
                #expect(Data(last.body) == Fixture.text)
            }
        }
    }

    @Test("pipelined requests are answered in order")
    func pipelined() async throws {
        try await LiveServer.standard { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.send("HEAD", "/text.txt")
                try await connection.send("GET", "/text.txt", headers: [("Range", "bytes=0-3")])
                try await connection.send("GET", "/index.html")
                #expect(try await connection.readResponse(bodyless: true).status == 200)
                #expect(try await connection.readResponse().bodyText == "line")
                #expect(try await connection.readResponse().bodyText == "<h1>home</h1>\n")
            }
        }
    }
}

extension KeepAliveTests {
    static let large = Fixture.pseudoRandom(count: 32 << 20, seed: 61)

    static func folderWithLargeFile(_ folder: URL) throws {
        try folder.write(large, to: "large.bin")
    }

    /// `Connection: close` makes the server close after the response; a slow reader still gets
    /// every byte before the close.
    @Test("Connection: close with a slow reader still delivers the whole body")
    func closeAfterSlowRead() async throws {
        try await LiveServer.with(prepare: Self.folderWithLargeFile) { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                try await connection.send("GET", "/large.bin", headers: [("Connection", "close")])
                try await Task.sleep(for: .milliseconds(500))
                let response = try await connection.readResponse()
                #expect(response.status == 200)
                #expect(response.body.count == Self.large.count)
                #expect(Fixture.sha256(response.body) == Fixture.sha256(Self.large))
                #expect(try await connection.isClosedByServer())
            }
        }
    }
}

extension KeepAliveTests {
    @Test("request headers over the configured limits get 400")
    func headerLimits() async throws {
        let configuration = ServerConfiguration(headerLimits: .init(maxFieldBytes: 1024, maxListBytes: 2048, maxFieldCount: 20))
        try await LiveServer.with(configuration: configuration, prepare: Fixture.standardFolder) { server in
            let small = try await RawHTTPConnection.with(port: server.port) {
                try await $0.request("GET", "/index.html", headers: [("X-Note", String(repeating: "a", count: 500))]).status
            }
            #expect(small == 200)
            let longField = try await RawHTTPConnection.with(port: server.port) {
                try await $0.request("GET", "/index.html", headers: [("X-Note", String(repeating: "a", count: 1500))]).status
            }
            #expect(longField == 400)
            let manyFields = try await RawHTTPConnection.with(port: server.port) {
                try await $0.request("GET", "/index.html", headers: (0..<30).map { ("X-Field-\($0)", "1") }).status
            }
            #expect(manyFields == 400)
        }
    }
}
