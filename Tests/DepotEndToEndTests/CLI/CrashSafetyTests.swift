import DepotClient
import DepotTestSupport
import Foundation
import Testing

// Kills at every step: `kill -9` of `depot serve` while it stores an upload, inside a publish's
// commit, during a batched publish, and of `depot sync` during a switch. The subject is the
// process dying, so each suite here spawns it (DepotProcess).

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

/// `kill -9` of the real server at random points of a batched publish (`depot publish` of
/// thousands of small files: `POST /v1/blobs` batches, each stored with one group commit, then
/// the commit): after a restart the channel is on release N or N+1, every blob it lists reads
/// back whole, no blob is stored under a name its bytes do not have, and `tmp/` is empty.
@Suite("Crash safety of batched publishes", .serialized)
struct BatchCrashTests {
    static let files = 1_200
    static let fileBytes = 8192

    static func writeTree(_ root: URL, generation: Int) throws {
        let all = Fixture.pseudoRandom(count: files * fileBytes, seed: UInt64(generation))
        for index in 0..<files {
            try root.write(all[index * fileBytes..<(index + 1) * fileBytes], to: "site/\(index / 250)/\(index).bin")
        }
    }

    /// The store's path (`xx/sha256`) of the tree's first file.
    static func firstBlobPath(_ root: URL) throws -> String {
        let sha256 = Fixture.sha256(try Data(contentsOf: root.appendingPathComponent("site/0/0.bin")))
        return "\(sha256.prefix(2))/\(sha256)"
    }

    /// Every file under `data/blobs` holds the bytes its name says (the content's SHA-256;
    /// `.gz` variants decode to their blob's).
    static func blobsAreWhole(_ root: URL) throws -> Bool {
        let folder = root.appendingPathComponent("data/blobs")
        for shard in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(shard).path) where name.count == 64 {
                let bytes = try Data(contentsOf: folder.appendingPathComponent("\(shard)/\(name)"))
                guard Fixture.sha256(bytes) == name else { return false }
            }
        }
        return true
    }

    @Test("killed at random points of a batched publish: release N or N+1, every listed blob whole", arguments: 0..<4)
    func killedDuringBatches(round: Int) async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            let (before, published) = try await CrashSafetyTests.serving(in: root) { depot, port in
                let server = "http://127.0.0.1:\(port)"
                try Self.writeTree(root, generation: 1)
                let first = try await InProcessCLI.run(["publish", "site", "--server", server], token: CrashSafetyTests.token, in: root)
                #expect(first.status == 0, "\(first.errors)")
                let before = try await RawHTTPConnection.with(port: port) { try await $0.releaseFiles().compactMap { $0["sha256"] as? String } }
                #expect(before.count == Self.files)

                try Self.writeTree(root, generation: 2)
                let published = try await DepotProcess.with(
                    ["publish", "site", "--server", server],
                    environment: ["DEPOT_TOKEN": CrashSafetyTests.token],
                    in: root
                ) {
                    publish in
                    // Round 0: while a batch is being written to tmp/; round 1: once a first new blob has
                    // its name (a batch committed, the next one or the commit under way); then at random.
                    let firstNew = root.appendingPathComponent("data/blobs").appendingPathComponent(try Self.firstBlobPath(root))
                    for _ in 0..<3_000 {
                        let reached =
                            switch round {
                            case 0: try !CrashSafetyTests.temporaryFiles(root).isEmpty
                            case 1: FileManager.default.fileExists(atPath: firstNew.path)
                            default: true
                            }
                        if reached { break }
                        try await Task.sleep(for: .milliseconds(2))
                    }
                    if round >= 2 { try await Task.sleep(for: .milliseconds(Int.random(in: 0...300) + (round - 2) * 400)) }
                    depot.kill()
                    _ = try await depot.waitForExit()
                    return try await publish.waitForExit() == 0
                }
                return (before, published)
            }
            try await CrashSafetyTests.serving(in: root) { depot, port in
                #expect(try CrashSafetyTests.temporaryFiles(root).isEmpty)
                #expect(try Self.blobsAreWhole(root), "no blob under a name its bytes do not have")
                try await RawHTTPConnection.with(port: port) { connection in
                    let listed = try await connection.releaseFiles()
                    let shas = listed.compactMap { $0["sha256"] as? String }
                    #expect(listed.count == Self.files)
                    #expect(shas == before || Set(shas).isDisjoint(with: before), "release N or N+1, never a mix")
                    #expect(!published || shas != before, "a publish that reported success is live")
                    print("round \(round): publish \(published ? "finished" : "killed"), release \(shas == before ? "N" : "N+1") live")
                    for sha256 in shas.shuffled().prefix(200) {
                        let response = try await connection.request("GET", "/blobs/\(sha256)")
                        #expect(response.status == 200)
                        #expect(Fixture.sha256(Data(response.body)) == sha256)
                    }
                }
                // The publish, run again, finishes the job.
                let again = try await InProcessCLI.run(
                    ["publish", "site", "--server", "http://127.0.0.1:\(port)"],
                    token: CrashSafetyTests.token,
                    in: root
                )
                #expect(again.status == 0, "\(again.errors)")
                let after = try await RawHTTPConnection.with(port: port) { try await $0.releaseFiles().compactMap { $0["sha256"] as? String } }
                let expected = try (0..<Self.files).map {
                    Fixture.sha256(try Data(contentsOf: root.appendingPathComponent("site/\($0 / 250)/\($0).bin")))
                }
                #expect(Set(after) == Set(expected))
                #expect(try await depot.stop() == 0)
            }
        }
    }
}
