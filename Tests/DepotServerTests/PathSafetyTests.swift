import DepotTestSupport
import Foundation
import Testing

/// Request targets that try to leave the public folder, and names that only look suspicious.
@Suite("Path safety")
struct PathSafetyTests {
    static func prepare(_ folder: URL) throws {
        try Fixture.standardFolder(folder)
        try folder.write(Data("dots\n".utf8), to: "v1..2.txt")
        try folder.write(Data("space\n".utf8), to: "a b.txt")
        try folder.write(Data("secret\n".utf8), to: ".env")
        try folder.write(Data("inside\n".utf8), to: "sub/inside.txt")
        // A file outside the public folder, and links to it and to a file inside.
        let outside = folder.deletingLastPathComponent().appendingPathComponent("outside.txt")
        try Data("outside\n".utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("escape.txt").path, withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("alias.txt").path, withDestinationPath: "sub/inside.txt")
        // A link to a hidden file inside the folder: the file is not served, nor through the link.
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("env-link").path, withDestinationPath: ".env")
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("linked-dir").path,
            withDestinationPath: folder.deletingLastPathComponent().path
        )
    }

    @Test(
        "targets that could escape are refused with 400",
        arguments: [
            "/../outside.txt", "/%2e%2e/outside.txt", "/%2E%2E%2Foutside.txt", "/sub/../../outside.txt", "/sub/%2e%2e/%2e%2e/outside.txt",
            "/a%00.txt", "/sub%5c..%5c..%5coutside.txt", "/sub\\..\\outside.txt", "//etc/passwd", "/sub//inside.txt", "/%zz", "/./text.txt",
        ]
    )
    func refused(target: String) async throws {
        try await InProcessServer.with(prepare: Self.prepare) { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", target)
                #expect(response.status == 400)
                #expect(!response.bodyText.contains("outside"))
                #expect(response.body.count < 200)
            }
        }
    }

    @Test(
        "links out of the folder, hidden files and unknown names are 404",
        arguments: ["/escape.txt", "/linked-dir/outside.txt", "/.env", "/env-link", "/missing.txt", "/sub/missing", "/text.txt/x"]
    )
    func notFound(target: String) async throws {
        try await InProcessServer.with(prepare: Self.prepare) { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", target)
                #expect(response.status == 404)
                #expect(response.bodyText.contains("No file"))
            }
        }
    }

    @Test(
        "legitimate names work",
        arguments: [("/v1..2.txt", "dots\n"), ("/a%20b.txt", "space\n"), ("/sub/inside.txt", "inside\n"), ("/alias.txt", "inside\n")]
    )
    func served(target: String, body: String) async throws {
        try await InProcessServer.with(prepare: Self.prepare) { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", target)
                #expect(response.status == 200)
                #expect(response.bodyText == body)
            }
        }
    }
}
