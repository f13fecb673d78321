import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// Issue 57 #20: what a server says of a page's brotli pack is not signed. A plan and a budget
/// count a page at its plain pack's length, which the page signs; a report counts every byte a
/// sync moved, a brotli attempt that failed included.
@Suite("Pack budgets")
struct PackBudgetTests {

    @Test(
        "a mirror says a page's brotli pack is 1 byte: a check expects the plain pack's 1.2 MB, a 600 KB budget refuses before any pack moves, a sync reports the 2.4 MB it moved"
    )
    func lyingBrotliLength() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish(Fixture.smallPackFiles)
            try await InProcessPackMirror.with(in: server) { mirror in
                try await withTemporaryDirectory { folder in
                    let url = try #require(URL(string: mirror.url("/")))
                    let plan = try await DepotClient(server: url, directory: folder).check()
                    #expect(plan.files.count == 30 && plan.files.allSatisfy { $0.way == .packed }, "\(plan.files.prefix(2))")
                    #expect(plan.expectedBytes >= Fixture.smallPackLength, "\(plan.expectedBytes) bytes expected")

                    var budgeted = DepotClient.Configuration()
                    budgeted.maximumTransferBytes = Fixture.smallPackLength / 2
                    let refused = await #expect(throws: SyncError.self) {
                        try await DepotClient(server: url, directory: folder, configuration: budgeted).sync()
                    }
                    #expect(refused?.code == .overBudget, "\(String(describing: refused))")
                    #expect(mirror.requests("GET", startingWith: "/packs/") + mirror.requests("GET", startingWith: "/blobs/") == 0)

                    let report = try await DepotClient(server: url, directory: folder).sync()
                    #expect(report.failedCount == 0 && report.updatedCount == 30, "\(report.files.prefix(2))")
                    let moved = Int64(mirror.bodyBytes(startingWith: "/packs/") + mirror.bodyBytes(startingWith: "/blobs/"))
                    #expect(moved >= 2 * Fixture.smallPackLength, "the brotli attempt, then the plain pack: \(moved) bytes")
                    #expect(report.files.reduce(0) { $0 + $1.bytesTransferred } == moved, "the report counts every byte moved")
                    for (path, data) in Fixture.smallPackFiles.prefix(3) {
                        #expect(try Data(contentsOf: folder.appendingPathComponent(path)) == data)
                    }
                }
            }
        }
    }
}
