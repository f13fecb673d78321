import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// Issue 57, cause 8: a hostile mirror's brotli packs against a plan made by signed sizes
/// (``PackBudgetTests``): a body far longer than the signed plain pack is cut off at that
/// length, the plain pack is taken instead, and the bytes moved are counted.
@Suite("Pack mirror attacks")
struct PackMirrorAttackTests {
    static let files = Fixture.smallPackFiles
    static let packLength = Fixture.smallPackLength
    /// What the mirror adds after the plain pack's bytes in a brotli pack's answer.
    static let surplus = 16 << 20

    @Test("a brotli pack 16 MiB longer than the signed plain pack: cut off at the plain length, the plain pack taken, the report counts what moved")
    func longerThanSigned() async throws {
        // On a socket: the client refuses the answer by its Content-Length, and the cut is
        // URLSession's, which cancels a task whose delegate refuses its response; for a protocol
        // of the test's own (in process), swift-corelibs-foundation ignores that refusal.
        try await LiveServer.withPublishing { server in
            try await server.publish(Self.files)
            try await LyingPackMirror.with(upstreamPort: server.port, surplus: Self.surplus) { mirror in
                try await withTemporaryDirectory { folder in
                    let url = try #require(URL(string: mirror.url("/")))
                    let report = try await DepotClient(server: url, directory: folder).sync()
                    #expect(report.failedCount == 0 && report.updatedCount == 30, "\(report.files.prefix(2))")
                    let counted = report.files.reduce(0) { $0 + $1.bytesTransferred }
                    // The brotli attempt (cut off at the plain pack's length) and the plain pack.
                    #expect(counted >= 2 * Self.packLength, "counted \(counted)")
                    // Cut off: not the whole surplus. What arrived before the cancel took effect (on
                    // loopback, a few MiB that corelibs had read ahead; never kept in memory) is counted.
                    #expect(counted < 2 * Self.packLength + Int64(Self.surplus) / 2, "counted \(counted): the surplus was read")
                    for (path, data) in Self.files {
                        #expect(try Data(contentsOf: folder.appendingPathComponent(path)) == data)
                    }
                }
            }
        }
    }

    @Test("maximumTransferBytes just above the plain pack: a mirror whose brotli pack fails cannot make the sync move past it")
    func budgetHoldsAgainstAFailedAttempt() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish(Self.files)
            try await InProcessPackMirror.with(in: server) { mirror in
                try await withTemporaryDirectory { folder in
                    let url = try #require(URL(string: mirror.url("/")))
                    var budgeted = DepotClient.Configuration()
                    budgeted.maximumTransferBytes = Self.packLength * 11 / 10
                    let report = try await failedReport { try await DepotClient(server: url, directory: folder, configuration: budgeted).sync() }
                    let moved = Int64(mirror.bodyBytes(startingWith: "/packs/") + mirror.bodyBytes(startingWith: "/blobs/"))
                    #expect(moved <= Self.packLength * 11 / 10, "moved \(moved) under a budget of \(Self.packLength * 11 / 10)")
                    // The plain pack after the failed attempt was refused before it started, and no
                    // file after it: each says why, and nothing is applied.
                    #expect(report.updatedCount == 0 && report.failedCount == 30)
                    #expect(
                        report.files.allSatisfy { $0.error?.contains("the servers sent more than the plan") == true },
                        "\(report.files.prefix(2))"
                    )
                    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(Self.files[0].0).path))
                }
            }
        }
    }
}
