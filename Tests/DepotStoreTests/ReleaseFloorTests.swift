import DepotStore
import DepotTestFixtures
import Foundation
import GRDB
import Testing

/// The release floor a restore or an import raises (migration 0013): the next release is
/// numbered past any the copy may have missed, and the floor never lowers a number.
@Suite("Release floor")
struct ReleaseFloorTests {
    @Test("raised by a margin past the newest release; the next commit takes the number after it; a second, smaller raise never lowers it")
    func floor() async throws {
        try await ReleaseCatalogTests.withCatalog { catalog in
            for text in ["one", "two", "three"] {
                _ = try await ReleaseCatalogTests.commit(catalog, [ReleaseCatalogTests.file("a.txt", text)])
            }
            #expect(try await ReleaseStore(catalog).raiseReleaseFloor(by: 100) == 104)
            let next = try await ReleaseCatalogTests.commit(catalog, [ReleaseCatalogTests.file("a.txt", "four")])
            #expect(next.release?.number == 104)
            // A margin of 0 from release 104 leaves the number after it.
            #expect(try await ReleaseStore(catalog).raiseReleaseFloor(by: 0) == 105)
            let summary = try await Maintenance(catalog).finishRebuild("restore", releaseMargin: 10, serialMargin: 1000, now: 1_800_000_000)
            #expect(summary.newestRelease == 104 && summary.nextRelease == 115)
            #expect(summary.channels == [.init(name: "stable", release: 104, serial: 4)])
            let audit = try await AuditLog(catalog).auditRecords(limit: 1)
            #expect(audit.first?.action == "restore" && audit.first?.detail == "stable at release 104; serials raised by 1000; next release 115")
        }
    }

    @Test("a restored catalog with a release number or serial near Int64's end is refused in one line, not raised into an overflow")
    func nearTheEnd() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("catalog.sqlite").path
            let catalog = try Catalog(path: path)
            _ = try await ReleaseCatalogTests.commit(catalog, [ReleaseCatalogTests.file("a.txt", "one")])
            try await ReleaseStore(catalog).checkMargins(serial: 1000, releases: 100)
            for sql in ["UPDATE release SET number = 9223372036854775707", "UPDATE channel SET serial = 9223372036854775800"] {
                let other = try Catalog(path: folder.appendingPathComponent("copy-\(sql.count).sqlite").path)
                _ = try await ReleaseCatalogTests.commit(other, [ReleaseCatalogTests.file("a.txt", "one")])
                try await DatabaseQueue(path: folder.appendingPathComponent("copy-\(sql.count).sqlite").path).write { try $0.execute(sql: sql) }
                let error = await #expect(throws: StoreError.self) { try await ReleaseStore(other).checkMargins(serial: 1000, releases: 100) }
                #expect(error?.message.contains("beyond what Depot makes") == true, "\(sql)")
            }
        }
    }
}
