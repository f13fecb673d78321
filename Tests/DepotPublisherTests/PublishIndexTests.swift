import DepotTestFixtures
import Foundation
import Testing

@testable import DepotPublisher

/// The publisher's stat cache: what it trusts, and what it ignores.
@Suite("Publish index")
struct PublishIndexTests {
    static let second: Int64 = 1_000_000_000
    static let sha = String(repeating: "a", count: 64)

    static func file(_ path: String, modified: Int64, changed: Int64? = nil, size: Int64 = 10, inode: UInt64 = 7) -> LocalFile {
        LocalFile(
            file: "/tree/\(path)",
            logicalPath: path,
            status: FileStatus(size: size, modified: modified, changed: changed ?? modified, inode: inode, device: 1)
        )
    }

    @Test("a status is trusted only when it is older than the racy window at the publish's start")
    func racyWindow() {
        let started = 1_000 * Self.second
        let cases: [(modified: Int64, changed: Int64, trusted: Bool)] = [
            (started - 10 * Self.second, started - 10 * Self.second, true),
            (started - 2 * Self.second, started - 2 * Self.second, true),
            (started - 2 * Self.second + 1, started - 10 * Self.second, false),
            // mtime set back by hand: ctime still says when.
            (started - 100 * Self.second, started - Self.second, false),
            (started, started, false),
            (started + Self.second, started + Self.second, false),
        ]
        for (modified, changed, trusted) in cases {
            let source = PublishIndex.source(for: Self.file("a", modified: modified, changed: changed), publishStarted: started)
            #expect((source != nil) == trusted, "modified \(modified - started), changed \(changed - started)")
        }
    }

    @Test("the index knows a file only while its file and every field of its status are the same")
    func digestNeedsTheSameStatus() {
        let known = Self.file("a", modified: 5 * Self.second)
        let index = PublishIndex(entries: ["a": .init(sha256: Self.sha, source: .init(file: known.file, status: known.status))])
        #expect(index.digest(of: known) == Self.sha)
        var changes: [LocalFile] = []
        for change in 0..<6 {
            var other = known
            switch change {
            case 0: other.status.size += 1
            case 1: other.status.modified += 1
            case 2: other.status.changed += 1
            case 3: other.status.inode += 1
            case 4: other.status.device += 1
            default: other.file = "/elsewhere/a"
            }
            changes.append(other)
        }
        for other in changes { #expect(index.digest(of: other) == nil) }
        // An entry without a source (too recent when it was hashed) is never trusted.
        #expect(PublishIndex(entries: ["a": .init(sha256: Self.sha)]).digest(of: known) == nil)
    }

    @Test("an index round-trips, and a damaged one is ignored whole")
    func roundTripAndDamage() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("cache/x.index")
            let status = FileStatus(size: 3, modified: 11, changed: 12, inode: 13, device: 14)
            let index = PublishIndex(
                release: .init(id: String(repeating: "b", count: 64), isComplete: true),
                entries: [
                    "a b/c.txt": .init(sha256: Self.sha, source: .init(file: "/tree/a b/c.txt", status: status)),
                    "gone.txt": .init(sha256: Self.sha),
                ]
            )
            try index.save(to: url)
            #expect(PublishIndex.load(from: url) == index)
            var bytes = try Data(contentsOf: url)
            for position in [0, bytes.count / 2, bytes.count - 3] {
                var damaged = bytes
                damaged[position] ^= 1
                try damaged.write(to: url)
                #expect(PublishIndex.load(from: url) == PublishIndex(), "byte \(position) flipped")
            }
            bytes.removeLast(10)
            try bytes.write(to: url)
            #expect(PublishIndex.load(from: url) == PublishIndex())
            #expect(PublishIndex.load(from: folder.appendingPathComponent("none")) == PublishIndex())
        }
    }

    @Test("the tree walk lists files by release path, leaves hidden ones out and follows no folder link")
    func treeWalk() async throws {
        try await withTemporaryDirectory { folder in
            let site = folder.appendingPathComponent("site")
            try site.write(Data("1".utf8), to: "b.txt")
            try site.write(Data("2".utf8), to: "a/c.txt")
            try site.write(Data("3".utf8), to: ".hidden/d.txt")
            try site.write(Data("4".utf8), to: "a/.e.txt")
            try FileManager.default.createSymbolicLink(atPath: site.appendingPathComponent("loop").path, withDestinationPath: site.path)
            try FileManager.default.createSymbolicLink(atPath: site.appendingPathComponent("link.txt").path, withDestinationPath: "b.txt")
            let files = try TreeWalk.files(of: [site.path], logicalPath: "pre")
            #expect(files.map(\.logicalPath) == ["pre/a/c.txt", "pre/b.txt", "pre/link.txt"])
            #expect(files.allSatisfy { $0.status.size == 1 })
            #expect(throws: PublisherError.self) { try TreeWalk.files(of: [folder.appendingPathComponent("none").path], logicalPath: nil) }
        }
    }
}
