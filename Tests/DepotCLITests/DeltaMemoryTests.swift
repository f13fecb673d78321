import DepotTestSupport
import Foundation
import Synchronization
import Testing

/// RFC 3229 answers stream the stored patch: many clients asking for it at once cost the server
/// buffers, not a copy of the patch each.
@Suite("Delta answers in bounded memory")
struct DeltaMemoryTests {
    static let token = "delta-memory-token"
    static let auth = ("Authorization", "Bearer \(token)")

    /// `count` bytes of text from a small vocabulary: gzip shrinks it about threefold, while a
    /// VCDIFF of new text of this kind is mostly literal data.
    static func words(count: Int, seed: UInt64) -> [UInt8] {
        let vocabulary = (0..<997).map { Array("w\($0 * 7919 % 100_003) ".utf8) }
        var state = seed
        var text: [UInt8] = []
        text.reserveCapacity(count + 16)
        while text.count < count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            text += vocabulary[Int(state >> 33) % vocabulary.count]
        }
        return Array(text.prefix(count))
    }

    /// The process's anonymous resident memory (`RssAnon`): its heap and buffers, without the
    /// pages of its executable and libraries that the first downloads happen to touch.
    static func residentBytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }

    @Test("50 concurrent A-IM: vcdiff downloads of a patch over 4 MiB grow the server's RSS by under 1 MiB each, not a copy each")
    func concurrentDeltaAnswers() async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            // Two malloc arenas: glibc's default of one per thread keeps memory freed on other
            // threads resident, ±20 MiB of noise here; the buffering this test looks for is not.
            // Unpacked sections: the patch must be large (packed with LZMA, it is a third the
            // size), and packing changes only the stored bytes, not how they are served.
            try await DepotProcess.with(
                ["serve", "--port", "0", "--public", "public", "--data", "data"],
                environment: [
                    "DEPOT_PUBLISH_TOKENS": Self.token, "DEPOT_LOG_REQUESTS": "false", "MALLOC_ARENA_MAX": "2",
                    "DEPOT_DELTAS_PACK_SECTIONS": "false",
                ],
                in: root
            ) { depot in
                let port = try await depot.waitForPort()
                let version1 = Self.words(count: 16 << 20, seed: 1)
                let version2 = version1 + Self.words(count: 8 << 20, seed: 2)
                let old = "\"\(Fixture.sha256(version1))\""
                let patchSize = try await RawHTTPConnection.with(port: port) { connection -> Int in
                    #expect(try await connection.request("PUT", "/v1/files/words.txt", headers: [Self.auth], body: version1).status == 201)
                    #expect(try await connection.request("PUT", "/v1/files/words.txt", headers: [Self.auth], body: version2).status == 201)
                    for _ in 0..<600 {
                        let response = try await connection.request("GET", "/files/words.txt", headers: [("A-IM", "vcdiff"), ("If-None-Match", old)])
                        if response.status == 226 { return response.body.count }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    return 0
                }
                #expect(patchSize > 4 << 20, "the patch is large enough to see copies of it")
                let pid = depot.process.processIdentifier
                let idle = try #require(Self.residentBytes(of: pid))
                let clients = 50
                let finished = Finished()
                // The clients run to their end while the server's resident size is sampled.
                let (statuses, peak) = try await withThrowingTaskGroup(of: (Int32?, Int).self) { group in
                    for _ in 0..<clients {
                        group.addTask {
                            let curl = try await ChildProcess.run(
                                "curl",
                                [
                                    "-s", "-o", "/dev/null", "--limit-rate", "4M", "-H", "A-IM: vcdiff", "-H", "If-None-Match: \(old)",
                                    "http://127.0.0.1:\(port)/files/words.txt",
                                ]
                            )
                            finished.count.withLock { $0 += 1 }
                            return (curl.status, 0)
                        }
                    }
                    group.addTask {
                        var peak = idle
                        while finished.count.withLock({ $0 }) < clients {
                            peak = max(peak, Self.residentBytes(of: pid) ?? 0)
                            try await Task.sleep(for: .milliseconds(20))
                        }
                        return (nil, peak)
                    }
                    return try await group.reduce(into: ([Int32](), idle)) { result, outcome in
                        if let status = outcome.0 { result.0.append(status) }
                        result.1 = max(result.1, outcome.1)
                    }
                }
                #expect(statuses == [Int32](repeating: 0, count: clients))
                let growth = peak - idle
                // A download holds its buffers (zlib's window, a read chunk, one output piece, what the
                // socket has not taken yet): 200 to 350 KiB each measured alone, up to 580 KiB with
                // the rest of the suite running beside it. A copy of the patch each would be over 4 MiB.
                #expect(growth < clients << 20, "RSS grew by \(growth >> 20) MiB for \(clients) downloads of a \(patchSize >> 20) MiB patch")
            }
        }
    }
}

/// How many of the test's clients have ended.
private final class Finished: Sendable {
    let count = Mutex(0)
}
