import Crypto
import DepotTestSupport
import Foundation
import Testing

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
