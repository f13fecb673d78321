import DepotConnection
import DepotHTTP
import DepotServer
import DepotStore
import DepotTestSupport
import Foundation
import Testing
import _NIOFileSystem

/// Validators are computed once per content: a changed file gets new ones after the next scan,
/// and the bytes served always match the validators sent with them.
@Suite("Public folder rescans")
struct RescanTests {
    @Test("a changed, added or removed file is noticed")
    func changes() async throws {
        try await InProcessServer.with(configuration: .init(publicRescanInterval: .milliseconds(100)), prepare: Fixture.standardFolder) { server in
            try await server.connection { connection in
                let before = try await connection.request("GET", "/index.html")
                let newContent = Data("<h1>changed</h1>\n".utf8)
                try server.publicDirectory.write(newContent, to: "index.html", modified: Date(timeIntervalSince1970: 1_750_000_000))
                try server.publicDirectory.write(Data("new\n".utf8), to: "added.txt")
                try FileManager.default.removeItem(at: server.publicDirectory.appendingPathComponent("noise.bin"))

                var after = before
                for _ in 0..<100 {
                    after = try await connection.request("GET", "/index.html")
                    let added = try await connection.request("GET", "/added.txt")
                    if after.bodyText != before.bodyText && added.status == 200 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(Data(after.body) == newContent)
                #expect(after.header("ETag") == "\"\(Fixture.sha256(newContent))\"")
                #expect(after.header("ETag") != before.header("ETag"))
                #expect(after.header("Last-Modified") == HTTPDate(secondsSince1970: 1_750_000_000).imfFixdate)
                #expect(try await connection.request("GET", "/added.txt").bodyText == "new\n")
                #expect(try await connection.request("GET", "/noise.bin").status == 404)
                // The old tag no longer validates.
                let stale = try await connection.request("GET", "/index.html", headers: [("If-None-Match", before.header("ETag")!)])
                #expect(stale.status == 200)
            }
        }
    }

    @Test("the same content keeps its ETag across restarts")
    func stableAcrossRestarts() async throws {
        let first = try await InProcessServer.standard { server in
            try await server.connection { try await $0.request("GET", "/text.txt", headers: [("Accept-Encoding", "gzip")]) }
        }
        let second = try await InProcessServer.standard { server in
            try await server.connection { try await $0.request("GET", "/text.txt", headers: [("Accept-Encoding", "gzip")]) }
        }
        #expect(first.header("ETag") == second.header("ETag"))
        #expect(first.body == second.body)
    }

    @Test("a cancelled scan throws CancellationError; it never returns a list with files left out")
    func cancelledScan() async throws {
        try await withTemporaryDirectory { folder in
            let publicFolder = folder.appendingPathComponent("public")
            try Fixture.standardFolder(publicFolder)
            let store = try await BlobStore.open(dataDirectory: FilePath(folder.appendingPathComponent("data").path))
            let directory = try PublicDirectory(path: publicFolder.path, store: store)
            #expect(try await directory.scan(now: HTTPDate.now).files.count == 3)
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await directory.scan(now: HTTPDate.now)
            }
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }
}
