import DepotTestSupport
import Foundation
import Testing

/// `kill -9` of the real server while it stores an upload: after a restart the previous version is
/// served whole, no partial file is served, and temporary files are gone.
@Suite("Crash safety")
struct CrashSafetyTests {
    static let token = "crash-test-token"
    static let auth = ("Authorization", "Bearer \(token)")
    static let previous = Data("the previous version\n".utf8)

    /// Runs `depot serve` in `root` for the length of `body`, given the server and its port.
    static func serving<Result: Sendable>(in root: URL, _ body: (DepotProcess, Int) async throws -> Result) async throws -> Result {
        try await DepotProcess.with(
            ["serve", "--port", "0", "--public", "public", "--data", "data"],
            environment: ["DEPOT_PUBLISH_TOKENS": token],
            in: root
        ) {
            depot in
            try await body(depot, try await depot.waitForPort())
        }
    }

    /// The files in `tmp/` and its subfolders (where batches write).
    static func temporaryFiles(_ root: URL) throws -> [String] {
        try Fixture.files(below: root.appendingPathComponent("data/tmp"))
    }

    @Test("killed while an upload is being stored and gzipped")
    func killedMidUpload() async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            try await Self.serving(in: root) { depot, port in
                let first = try await RawHTTPConnection.with(port: port) {
                    try await $0.request("PUT", "/v1/files/db.bin", headers: [Self.auth], body: Array(Self.previous)).status
                }
                #expect(first == 201)

                // Half of a 40 MB upload, then the server dies while hashing, compressing and writing it.
                let next = [UInt8](repeating: 0x61, count: 40 << 20)
                try await RawHTTPConnection.with(port: port) { connection in
                    try await connection.send("PUT", "/v1/files/db.bin", headers: [Self.auth, ("Content-Length", "\(next.count)")])
                    try await connection.sendRaw(Array(next.prefix(20 << 20)))
                    var stored = try Self.temporaryFiles(root)
                    // Hang guard: slowest seen 3.1 s under two busy loops (the whole test).
                    for _ in 0..<12_000 where stored.isEmpty {
                        try await Task.sleep(for: .milliseconds(10))
                        stored = try Self.temporaryFiles(root)
                    }
                    #expect(!stored.isEmpty, "the upload was being written when the server was killed")
                    depot.kill()
                    _ = try await depot.waitForExit()
                }
            }

            try await Self.serving(in: root) { depot, port in
                let (body, etag) = try await RawHTTPConnection.with(port: port) { connection in
                    let response = try await connection.request("GET", "/files/db.bin")
                    return (response.body, response.header("ETag"))
                }
                #expect(Data(body) == Self.previous)
                #expect(etag == "\"\(Fixture.sha256(Self.previous))\"")
                #expect(try Self.temporaryFiles(root).isEmpty)
                #expect(try await depot.stop() == 0)
            }
        }
    }

    /// Holds the catalog's write lock from another process (Python's `sqlite3`, `BEGIN
    /// IMMEDIATE`) until `body` returns: a commit then waits inside, with its content stored and
    /// its transaction not begun, for up to the catalog's busy timeout.
    static func holdingCatalogLock<Result: Sendable>(_ catalog: URL, _ body: () async throws -> Result) async throws -> Result {
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("BEGIN IMMEDIATE")
            print("locked", flush=True)
            sys.stdin.read()
            """
        let input = Pipe()
        let output = Pipe()
        return try await ChildProcess.with(
            "python3",
            ["-c", script, catalog.path],
            input: input.fileHandleForReading.fileDescriptor,
            output: output.fileHandleForWriting.fileDescriptor
        ) { locker in
            try input.fileHandleForReading.close()
            try output.fileHandleForWriting.close()
            let answer = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            #expect(answer.contains("locked"), "another process holds the catalog's write lock")
            let result = try await body()
            // End of its input: it rolls back and exits.
            try input.fileHandleForWriting.close()
            // Hang guard: slowest seen 3.1 s under two busy loops (the whole test).
            _ = try await locker.waitForExit(timeout: .seconds(120))
            return result
        }
    }

    /// What a restarted server serves after `crash`: a server starts in a fresh folder with
    /// ``previous`` published at `db.bin`, `crash` (given the folder, the server and its port)
    /// kills it, and it starts again. Returns the body and ETag of `/files/db.bin`, the SHA-256
    /// the release lists for it, and the temporary files left.
    static func servedAfter(
        _ crash: (URL, DepotProcess, Int) async throws -> Void
    ) async throws -> (body: Data, etag: String?, listed: String?, leftovers: [String]) {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            try await Self.serving(in: root) { depot, port in
                _ = try await RawHTTPConnection.with(port: port) {
                    try await $0.request("PUT", "/v1/files/db.bin", headers: [Self.auth], body: Array(Self.previous)).status
                }
                try await crash(root, depot, port)
                _ = try await depot.waitForExit()
            }
            return try await Self.serving(in: root) { depot, port in
                let (response, listed) = try await RawHTTPConnection.with(port: port) { connection in
                    (try await connection.request("GET", "/files/db.bin"), try await connection.releaseFiles().first?["sha256"] as? String)
                }
                let leftovers = try Self.temporaryFiles(root)
                #expect(try await depot.stop() == 0)
                return (Data(response.body), response.header("ETag"), listed, leftovers)
            }
        }
    }

    @Test("killed inside a publish's commit, waiting for the catalog: a restart serves the previous version whole")
    func killedInsideCommit() async throws {
        let next = Fixture.pseudoRandom(count: 1 << 20, seed: 78)
        let served = try await Self.servedAfter { root, depot, port in
            let nextBlob = root.appendingPathComponent("data/blobs/\(Fixture.sha256(next).prefix(2))/\(Fixture.sha256(next))")
            try await Self.holdingCatalogLock(root.appendingPathComponent("data/catalog.sqlite")) {
                try await RawHTTPConnection.with(port: port) { connection in
                    try await connection.send("PUT", "/v1/files/db.bin", headers: [Self.auth], body: Array(next))
                    // The content is stored: the publish has reached its commit, which waits for
                    // the lock. The kill lands there.
                    // Hang guard: slowest seen 1.3 s under two busy loops (the whole test).
                    for _ in 0..<12_000 where !FileManager.default.fileExists(atPath: nextBlob.path) {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    #expect(FileManager.default.fileExists(atPath: nextBlob.path), "the publish reached its commit")
                    try await Task.sleep(for: .milliseconds(100))
                    depot.kill()
                    _ = try await depot.waitForExit()
                }
            }
        }
        #expect(served.body == Self.previous)
        #expect(served.listed == Fixture.sha256(Self.previous))
        #expect(served.leftovers.isEmpty)
    }

    /// Kills at moments around the commit, landing before, inside or after it.
    @Test("killed at moments around a publish's commit: a restart serves one whole version", arguments: [0, 5, 20, 60])
    func killedDuringCommit(delayMilliseconds: Int) async throws {
        let next = Fixture.pseudoRandom(count: 4 << 20, seed: 77)
        let served = try await Self.servedAfter { _, depot, port in
            try await RawHTTPConnection.with(port: port) { connection in
                try await connection.send("PUT", "/v1/files/db.bin", headers: [Self.auth], body: Array(next))
                try await Task.sleep(for: .milliseconds(delayMilliseconds))
                depot.kill()
            }
        }
        #expect(served.body == Self.previous || served.body == next, "a whole version, never a mix or a part")
        #expect(served.etag == "\"\(Fixture.sha256(served.body))\"")
        #expect(served.listed == Fixture.sha256(served.body))
        #expect(served.leftovers.isEmpty)
    }
}
