import DepotHTTP
import DepotServer
import DepotStore
import DepotTestSupport
import Foundation
import Logging
import Testing
import _NIOFileSystem

/// A restart reads only the public files whose identity changed: the catalog records each
/// scan's files with their device, inode, size and times.
@Suite("Public folder across restarts")
struct PublicRestartTests {
    /// A fresh ``PublicSite`` over `folder`, as after a restart, sharing the store and catalog.
    static func site(_ folder: URL, store: BlobStore, catalog: Catalog) throws -> PublicSite {
        PublicSite(
            directory: try PublicDirectory(path: folder.appendingPathComponent("public").path, store: store),
            store: store,
            blobs: BlobIndex(catalog),
            cacheControl: CacheControlPolicy(defaultValue: "no-cache")
        )
    }

    /// A public folder holding `files`, with a store and a catalog in a data folder beside it.
    static func withFolder(
        _ files: [String: Data],
        _ body: (_ folder: URL, _ site: URL, BlobStore, Catalog) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { folder in
            let site = folder.appendingPathComponent("public")
            for (path, content) in files { _ = try site.write(content, to: path) }
            let data = FilePath(folder.appendingPathComponent("data").path)
            let store = try await BlobStore.open(dataDirectory: data)
            try await body(folder, site, store, try Catalog(path: data.appending("catalog.sqlite").string))
        }
    }

    @Test("a restart's scan reads only what changed, was replaced or lost its blob")
    func restarts() async throws {
        try await Self.withFolder(["a.txt": Data("a\n".utf8), "b.bin": Fixture.noise, "c.txt": Fixture.text]) { folder, site, store, catalog in
            let logger = Logger(label: "test")

            let first = try Self.site(folder, store: store, catalog: catalog)
            #expect(try await first.refresh(logger: logger) == .init(changed: 3, read: 3))
            let etag = first.resource(at: "c.txt")?.identity.entityTag

            // Restarted, nothing changed: nothing is read, everything is served.
            let second = try Self.site(folder, store: store, catalog: catalog)
            #expect(try await second.refresh(logger: logger) == .init(changed: 0, read: 0))
            #expect(second.resource(at: "c.txt")?.identity.entityTag == etag)
            #expect(second.resource(at: "a.txt") != nil && second.resource(at: "b.bin") != nil)

            // A rewritten file, a file replaced by a rename (same size and times, another inode),
            // and one whose blob is gone from the store are read again; nothing else.
            _ = try site.write(Data("A\n".utf8), to: "a.txt", modified: Date(timeIntervalSince1970: 1_750_000_000))
            let b = site.appendingPathComponent("b.bin")
            let modified = try FileManager.default.attributesOfItem(atPath: b.path)[.modificationDate] as! Date
            let replacement = folder.appendingPathComponent("b.new")
            try Fixture.noise.write(to: replacement)
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: replacement.path)
            #expect(rename(replacement.path, b.path) == 0)
            try FileManager.default.removeItem(atPath: store.path(forSHA256: Fixture.sha256(Fixture.text)).string)
            let third = try Self.site(folder, store: store, catalog: catalog)
            #expect(try await third.refresh(logger: logger) == .init(changed: 3, read: 3))
            #expect(third.resource(at: "a.txt")?.identity.entityTag.opaqueTag == Fixture.sha256(Data("A\n".utf8)))

            // And a file removed while the server was down is gone after the restart.
            try FileManager.default.removeItem(at: site.appendingPathComponent("a.txt"))
            let fourth = try Self.site(folder, store: store, catalog: catalog)
            #expect(try await fourth.refresh(logger: logger) == .init(changed: 1, read: 0))
            #expect(fourth.resource(at: "a.txt") == nil)
        }
    }

    @Test(
        "a first start serves nothing before its scan; a start from the record serves every recorded file before reading the folder, and its scan reads only the changed one"
    )
    func startServesTheRecord() async throws {
        try await Self.withFolder(["a.txt": Data("a\n".utf8), "c.txt": Fixture.text]) { folder, site, store, catalog in
            let logger = Logger(label: "test")

            // A first start has no record: it serves nothing until its scan, the full one.
            let first = try Self.site(folder, store: store, catalog: catalog)
            try await first.start(logger: logger)
            #expect(!first.isScanned && first.resource(at: "a.txt") == nil)
            #expect(try await first.refresh(logger: logger) == .init(changed: 2, read: 2))
            #expect(first.isScanned && first.resource(at: "a.txt") != nil)

            _ = try site.write(Data("A\n".utf8), to: "a.txt", modified: Date(timeIntervalSince1970: 1_750_000_000))
            _ = try site.write(Data("new\n".utf8), to: "n.txt")
            let restarted = try Self.site(folder, store: store, catalog: catalog)
            try await restarted.start(logger: logger)
            #expect(restarted.isScanned)
            // Served as recorded: the old a.txt, no n.txt yet, exactly as between two rescans.
            #expect(restarted.resource(at: "a.txt")?.identity.entityTag.opaqueTag == Fixture.sha256(Data("a\n".utf8)))
            #expect(restarted.resource(at: "c.txt") != nil && restarted.resource(at: "n.txt") == nil)
            #expect(try await restarted.refresh(logger: logger) == .init(changed: 2, read: 2))
            #expect(restarted.resource(at: "a.txt")?.identity.entityTag.opaqueTag == Fixture.sha256(Data("A\n".utf8)))
            #expect(restarted.resource(at: "n.txt") != nil)
        }
    }

    @Test("a start over another folder forgets the record of the one before")
    func anotherFolder() async throws {
        try await Self.withFolder(["a.txt": Data("a\n".utf8)]) { folder, site, store, catalog in
            let logger = Logger(label: "test")
            let first = try Self.site(folder, store: store, catalog: catalog)
            try await first.start(logger: logger)
            try await first.refresh(logger: logger)
            let firstRoot = try PublicDirectory(path: site.path, store: store).root.string
            #expect(try await BlobIndex(catalog).publicFiles(folder: firstRoot).count == 1)
            let other = folder.appendingPathComponent("other")
            _ = try other.write(Data("b\n".utf8), to: "public/b.txt")
            let second = try Self.site(other, store: store, catalog: catalog)
            try await second.start(logger: logger)
            #expect(!second.isScanned, "no record of this folder: served once scanned")
            #expect(try await BlobIndex(catalog).publicFiles(folder: firstRoot).isEmpty)
            try await second.refresh(logger: logger)
            let secondRoot = try PublicDirectory(path: other.appendingPathComponent("public").path, store: store).root.string
            #expect(try await BlobIndex(catalog).publicFiles(folder: secondRoot).keys.sorted() == ["b.txt"])
        }
    }
}
