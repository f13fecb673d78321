import Crypto
import DepotHTTP
import DepotManifest
import DepotStore
import DepotTestFixtures
import Foundation
import GRDB
import Testing

/// Releases in the catalog: one transaction each, pages re-encoded only where a change falls,
/// channels that move by diff, and refusals that change nothing.
@Suite("Releases in the catalog")
struct ReleaseCatalogTests {
    /// A record of `text` as the store would make it.
    static func blob(_ text: String) -> BlobRecord {
        let bytes = Array(text.utf8)
        return BlobRecord(
            sha256: Hex.string(SHA256.hash(data: bytes)),
            md5: Hex.string(Insecure.MD5.hash(data: bytes)),
            size: Int64(bytes.count),
            gzip: nil
        )
    }

    static func file(_ path: String, _ text: String) -> ReleaseStore.ReleaseFile {
        .init(path: path, blob: blob(text), contentType: "text/plain")
    }

    static let now = HTTPDate(secondsSince1970: 1_800_000_000)

    static func withCatalog(_ body: (Catalog) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            try await body(try Catalog(path: folder.appendingPathComponent("catalog.sqlite").path))
        }
    }

    static func commit(
        _ catalog: Catalog,
        channel: String = "stable",
        _ files: [ReleaseStore.ReleaseFile] = [],
        delete: [String] = [],
        replace: Bool = false
    ) async throws -> ReleaseStore.ReleaseOutcome {
        try await ReleaseStore(catalog).commit(.init(channel: channel, files: files, deletions: delete, replace: replace, now: now, keepVersions: 5))
    }

    /// Every entry of a release, by path, read from its stored documents as a client would.
    static func entries(of release: ReleaseSummary, in catalog: Catalog) async throws -> [String: ReleaseEntry] {
        let bytes = try #require(try await ReleaseStore(catalog).releaseDocument(id: release.id)).bytes
        #expect(Hex.string(SHA256.hash(data: bytes)) == release.id, "a release's id is the SHA-256 of its document")
        let document = try JSONDecoder().decode(ReleaseDocument.self, from: Data(bytes))
        #expect(document.pages.count == 1 << document.pageBits)
        var entries: [String: ReleaseEntry] = [:]
        for (index, sha256) in document.pages.enumerated() {
            let page = try #require(try await ReleaseStore(catalog).pageDocument(sha256: sha256)).bytes
            #expect(Hex.string(SHA256.hash(data: page)) == sha256, "a page's name is the SHA-256 of its document")
            for entry in try JSONDecoder().decode(ReleasePage.self, from: Data(page)).entries {
                #expect(ReleasePaging.page(ofBucket: ReleasePaging.bucket(ofPath: entry.path), bits: document.pageBits) == index)
                entries[entry.path] = entry
            }
        }
        #expect(Int64(entries.count) == document.files)
        #expect(entries.values.reduce(0) { $0 + $1.size } == document.bytes)
        return entries
    }

    @Test("a commit makes one release of every file, and its documents list them")
    func firstRelease() async throws {
        try await Self.withCatalog { catalog in
            let outcome = try await Self.commit(catalog, [Self.file("db/catalog.sqlite", "rows"), Self.file("img/a.png", "png")])
            let release = try #require(outcome.release)
            #expect(outcome.created && release.number == 1 && release.files == 2 && release.bytes == 7)
            let entries = try await Self.entries(of: release, in: catalog)
            #expect(entries["db/catalog.sqlite"]?.sha256 == Self.blob("rows").sha256)
            #expect(entries["img/a.png"]?.version == 1)
            #expect(try await ReleaseStore(catalog).channels().map(\.name) == ["stable"])
        }
    }

    @Test("a one-file change re-encodes one page and shares the others; pages re-page as the catalog grows")
    func changeTouchesOnePage() async throws {
        try await Self.withCatalog { catalog in
            let files = (0..<3000).map { Self.file("assets/\($0).json", "asset \($0)") }
            let first = try #require(try await Self.commit(catalog, files).release)
            let second = try #require(try await Self.commit(catalog, [Self.file("assets/17.json", "changed")]).release)
            let documents = try await [first, second].asyncMap { release in
                try JSONDecoder().decode(
                    ReleaseDocument.self,
                    from: Data(try #require(try await ReleaseStore(catalog).releaseDocument(id: release.id)).bytes)
                )
            }
            #expect(documents[0].pageBits == 6, "3000 files: 64 pages of about 47")
            #expect(documents[1].parent == first.id)
            let differing = zip(documents[0].pages, documents[1].pages).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
            #expect(differing == [ReleasePaging.page(ofBucket: ReleasePaging.bucket(ofPath: "assets/17.json"), bits: 6)])
            let entries = try await Self.entries(of: second, in: catalog)
            #expect(entries.count == 3000 && entries["assets/17.json"]?.version == 2)
        }
    }

    @Test("page bits grow past 64 entries a page and shrink below 16, not at every release")
    func pageBits() {
        let cases: [(files: Int, previous: Int, bits: Int)] = [
            (0, 0, 0), (64, 0, 0), (65, 0, 1), (3000, 0, 6), (100_000, 0, 11), (100_000, 11, 11),
            (40, 1, 1), (31, 1, 0), (1100, 6, 6), (1023, 7, 5), (10_000_000, 0, 16),
        ]
        for (files, previous, bits) in cases {
            #expect(ReleasePaging.bits(forFileCount: files, previous: previous) == bits, "\(files) files after \(previous) bits")
        }
    }

    @Test("the bucket of a path is stable (the client and every server compute the same) and ignores case and Unicode form")
    func buckets() {
        // Pinned: a client computes the same page as the server that wrote the release.
        #expect(ReleasePaging.bucket(ofPath: "a.txt") == 0xf83b_0e52)
        #expect(ReleasePaging.bucket(ofPath: "A.TXT") == 0xf83b_0e52)
        #expect(ReleasePaging.bucket(ofPath: "Caf\u{E9}.TXT") == ReleasePaging.bucket(ofPath: "cafe\u{301}.txt"))
        let counts = (0..<4096).reduce(into: [Int](repeating: 0, count: 16)) { counts, index in
            counts[ReleasePaging.page(ofBucket: ReleasePaging.bucket(ofPath: "file-\(index).bin"), bits: 4)] += 1
        }
        #expect(counts.allSatisfy { (192...320).contains($0) }, "16 pages of 4096 paths: about 256 each, \(counts)")
        #expect(ReleasePaging.buckets(ofPage: 3, bits: 2) == 0xC000_0000...0xFFFF_FFFF)
    }

    @Test("an unchanged commit makes no release; --replace deletes what it does not list")
    func unchangedAndReplace() async throws {
        try await Self.withCatalog { catalog in
            _ = try await Self.commit(catalog, [Self.file("a", "1"), Self.file("b", "2")])
            let unchanged = try await Self.commit(catalog, [Self.file("a", "1")])
            #expect(!unchanged.created && unchanged.release?.number == 1 && unchanged.channelSerial == 1)
            let replaced = try await Self.commit(catalog, [Self.file("a", "1"), Self.file("c", "3")], replace: true)
            #expect(replaced.removed == ["b"])
            #expect(try await Self.entries(of: try #require(replaced.release), in: catalog).keys.sorted() == ["a", "c"])
        }
    }

    @Test(
        "bad commits are refused and leave the live release as it was",
        arguments: [
            ([file("x", "1"), file("x", "2")], [String](), "Stable", CatalogError.Code.invalid),
            ([file("x", "1")], ["x"], "stable", .invalid),
            ([file("x", "1")], [], "bad_name", .invalid),
            ([file("A.txt", "1")], [], "stable", .conflict),
            ([file("a.txt/b", "1")], [], "stable", .conflict),
            ([file("dir", "1")], [], "stable", .conflict),
            ([file("n1", "1"), file("N1", "2")], [], "stable", .conflict),
            ([file("caf\u{E9}", "1"), file("cafe\u{301}", "2")], [], "stable", .invalid),
            ([], ["missing"], "stable", .notFound),
        ] as [([ReleaseStore.ReleaseFile], [String], String, CatalogError.Code)]
    )
    func refusals(files: [ReleaseStore.ReleaseFile], deletions: [String], channel: String, code: CatalogError.Code) async throws {
        try await Self.withCatalog { catalog in
            _ = try await Self.commit(catalog, [Self.file("a.txt", "a"), Self.file("dir/x", "x")])
            let before = try await ReleaseStore(catalog).channels()
            await #expect {
                try await Self.commit(catalog, channel: channel, files, delete: deletions)
            } throws: { error in
                (error as? CatalogError)?.code == code
            }
            let after = try await ReleaseStore(catalog).channels()
            #expect(after.map(\.serial) == before.map(\.serial) && after.map(\.release) == before.map(\.release))
            #expect(try await ReleaseStore(catalog).releases().count == 1)
        }
    }

    /// Paths that collide, the second with the first, and what the refusal says.
    static let collisions: [(String, String, String)] = [
        ("n1", "N1", "N1 collides with the live n1: they differ only in letter case or Unicode form"),
        ("a", "a/b", "a/b needs the folder a, which is a live file"),
        ("x/y", "X/Y/z", "X/Y/z needs the folder x/y, which is a live file"),
        ("a/b", "a", "a is a folder of the live a/b, so it cannot be a file"),
        ("x/y/z", "X/Y", "X/Y is a folder of the live x/y/z, so it cannot be a file"),
    ]

    @Test(
        "colliding paths are refused alike in one first commit (checked in memory) and one after the other (checked in the catalog)",
        arguments: collisions,
        [false, true]
    )
    func collision(paths: (String, String, String), apart: Bool) async throws {
        let (first, second, message) = paths
        try await Self.withCatalog { catalog in
            if apart { _ = try await Self.commit(catalog, [Self.file(first, "1")]) }
            let listed = apart ? [Self.file(second, "2")] : [Self.file(first, "1"), Self.file(second, "2")]
            await #expect {
                try await Self.commit(catalog, listed)
            } throws: { error in
                (error as? CatalogError)?.code == .conflict && "\(error)".contains(message)
            }
            #expect(try await ReleaseStore(catalog).releases().count == (apart ? 1 : 0))
        }
    }

    @Test("a path beside another in another letter case's folder is no collision, in one first commit or apart", arguments: [false, true])
    func folderCase(apart: Bool) async throws {
        try await Self.withCatalog { catalog in
            if apart { _ = try await Self.commit(catalog, [Self.file("A/x", "1")]) }
            let outcome = try await Self.commit(catalog, apart ? [Self.file("a/y", "2")] : [Self.file("A/x", "1"), Self.file("a/y", "2")])
            #expect(try await Self.entries(of: try #require(outcome.release), in: catalog).keys.sorted() == ["A/x", "a/y"])
        }
    }

    @Test("promote and rollback move a channel by what differs; a second rollback goes one further back")
    func promoteAndRollback() async throws {
        try await Self.withCatalog { catalog in
            for (index, text) in ["one", "two", "three"].enumerated() {
                _ = try await Self.commit(catalog, [Self.file("db", text), Self.file("only-\(index)", text)])
            }
            let releases = try await ReleaseStore(catalog).releases()
            #expect(releases.map(\.number) == [3, 2, 1])
            let back = try await ReleaseStore(catalog).rollback("stable", now: Self.now)
            #expect(back.to.number == 2 && back.serial == 4)
            #expect(back.diff.changed.map(\.after.path) == ["db"])
            #expect(try await ReleaseStore(catalog).liveVersion(of: "db")?.sha256 == Self.blob("two").sha256)
            #expect(try await ReleaseStore(catalog).rollback("stable", now: Self.now).to.number == 1)
            await #expect { try await ReleaseStore(catalog).rollback("stable", now: Self.now) } throws: { ($0 as? CatalogError)?.code == .conflict }
            let live = try await ReleaseStore(catalog).liveVersions()
            #expect(live.map(\.path) == ["db", "only-0"] && live.first?.sha256 == Self.blob("one").sha256)

            let promoted = try await ReleaseStore(catalog).promote("3", to: "beta", now: Self.now)
            #expect(promoted.from == nil && promoted.diff.added.count == 4)
            #expect(
                try await ReleaseStore(catalog).promote(releases[0].id, to: "beta", now: Self.now).serial == promoted.serial,
                "already there: no move"
            )
            await #expect { try await ReleaseStore(catalog).promote("99", to: "beta", now: Self.now) } throws: {
                ($0 as? CatalogError)?.code == .notFound
            }
            await #expect { try await ReleaseStore(catalog).promote("1", to: "Beta!", now: Self.now) } throws: {
                ($0 as? CatalogError)?.code == .invalid
            }
            await #expect { try await ReleaseStore(catalog).rollback("nothing", now: Self.now) } throws: { ($0 as? CatalogError)?.code == .notFound }

            // A publish after a rollback starts from the restored release.
            let next = try #require(try await Self.commit(catalog, [Self.file("new", "n")]).release)
            #expect(try await Self.entries(of: next, in: catalog).keys.sorted() == ["db", "new", "only-0"])
        }
    }

    @Test("channels are independent: a publish to beta leaves stable's files alone")
    func channelsIndependent() async throws {
        try await Self.withCatalog { catalog in
            _ = try await Self.commit(catalog, [Self.file("a", "stable")])
            let beta = try #require(try await Self.commit(catalog, channel: "beta", [Self.file("a", "beta"), Self.file("b", "b")]).release)
            #expect(try await ReleaseStore(catalog).liveVersions().map(\.path) == ["a"])
            #expect(try await ReleaseStore(catalog).liveVersion(of: "a")?.sha256 == Self.blob("stable").sha256)
            let diff = try await ReleaseStore(catalog).diff(from: try #require(try await ReleaseStore(catalog).release("1")), to: beta)
            #expect(diff.added.map(\.path) == ["b"] && diff.changed.map(\.after.path) == ["a"] && diff.removed.isEmpty)
        }
    }

    @Test("retention keeps what a channel points to and the last K; the rest goes after the grace period, with the pages only it listed")
    func releaseRetention() async throws {
        try await Self.withCatalog { catalog in
            var releases: [ReleaseSummary] = []
            for index in 1...6 {
                releases.append(
                    try #require(try await Self.commit(catalog, [Self.file("shared", "s"), Self.file("only-\(index)", "\(index)")]).release)
                )
            }
            _ = try await ReleaseStore(catalog).promote("2", to: "beta", now: Self.now)
            let pageOfOne = try #require(try await ReleaseStore(catalog).releaseDocument(id: releases[0].id)).bytes
            let onePages = try JSONDecoder().decode(ReleaseDocument.self, from: Data(pageOfOne)).pages
            let later = HTTPDate(secondsSince1970: Self.now.secondsSince1970 + 600)

            // Retired now, removed only once retired before the cutoff.
            #expect(try await Maintenance(catalog).collectReleases(keeping: 2, now: Self.now, before: Self.now) == 0)
            // A promote within the grace period brings release 3 back.
            _ = try await ReleaseStore(catalog).promote("3", to: "beta", now: Self.now)
            _ = try await ReleaseStore(catalog).promote("2", to: "beta", now: Self.now)
            #expect(
                try await Maintenance(catalog).collectReleases(keeping: 2, now: later, before: later) == 2,
                "1 and 4; 3 was retired again just now"
            )
            #expect(try await ReleaseStore(catalog).releases().map(\.number) == [6, 5, 3, 2])
            #expect(try await ReleaseStore(catalog).releaseDocument(id: releases[0].id) == nil)
            #expect(try await ReleaseStore(catalog).releaseDocument(id: releases[1].id) != nil)

            // Every page a kept release lists is still there; some of release 1's are gone.
            for release in try await ReleaseStore(catalog).releases() {
                let document = try JSONDecoder().decode(
                    ReleaseDocument.self,
                    from: Data(try #require(try await ReleaseStore(catalog).releaseDocument(id: release.id)).bytes)
                )
                for page in document.pages { #expect(try await ReleaseStore(catalog).pageDocument(sha256: page) != nil) }
            }
            var goneCount = 0
            for page in onePages where try await ReleaseStore(catalog).pageDocument(sha256: page) == nil { goneCount += 1 }
            #expect(goneCount > 0)

            await #expect { try await ReleaseStore(catalog).promote("1", to: "beta", now: later) } throws: { ($0 as? CatalogError)?.code == .gone }
            await #expect { try await ReleaseStore(catalog).promote("7", to: "beta", now: later) } throws: {
                ($0 as? CatalogError)?.code == .notFound
            }
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
