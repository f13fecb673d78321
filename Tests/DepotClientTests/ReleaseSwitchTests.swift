import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// The switch from one release to the next: a journal, then renames, finished by whoever comes
/// next when a sync is killed half-way.
@Suite("Release switch")
struct ReleaseSwitchTests {
    /// A staged file's name for `label`: a SHA-256, as a journal must name one.
    static func sha(_ label: String) -> String { Fixture.sha256(Data(label.utf8)) }

    static func client(_ folder: URL) -> DepotClient {
        DepotClient(server: URL(string: "http://127.0.0.1:9/")!, directory: folder)
    }

    static func held(_ number: Int64) -> SyncState {
        SyncState(
            channelETag: "\"e\(number)\"",
            release: HeldRelease(
                id: String(repeating: "\(number)", count: 64),
                number: number,
                channel: "stable",
                serial: number,
                files: 3,
                signature: .notChecked
            )
        )
    }

    /// A folder at release 1 (`a` and `old`), with release 2's files staged: `a` changed, `b/c`
    /// and `d` new with one content.
    static func prepare(_ folder: URL) throws -> ReleaseJournal {
        let client = Self.client(folder)
        try FileManager.default.createDirectory(at: client.directory.appendingPathComponent(StagingFolder.path), withIntermediateDirectories: true)
        _ = try folder.write(Data("a1".utf8), to: "a")
        _ = try folder.write(Data("old".utf8), to: "old")
        try Self.held(1).save(in: client.folder)
        _ = try folder.write(Data("a2".utf8), to: ".depot/staging/" + ReleaseSwitchTests.sha("a2"))
        _ = try folder.write(Data("same".utf8), to: ".depot/staging/" + ReleaseSwitchTests.sha("same"))
        return ReleaseJournal(
            state: Self.held(2),
            moves: [
                .init(staged: ReleaseSwitchTests.sha("a2"), path: "a", copy: false, modified: 1_700_000_000),
                .init(staged: ReleaseSwitchTests.sha("same"), path: "b/c", copy: true, modified: nil),
                .init(staged: ReleaseSwitchTests.sha("same"), path: "d", copy: false, modified: nil),
            ],
            removals: ["old"]
        )
    }

    static func release2(_ folder: URL) throws {
        #expect(try Data(contentsOf: folder.appendingPathComponent("a")) == Data("a2".utf8))
        #expect(try Data(contentsOf: folder.appendingPathComponent("b/c")) == Data("same".utf8))
        #expect(try Data(contentsOf: folder.appendingPathComponent("d")) == Data("same".utf8))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("old").path))
        #expect(Self.client(folder).currentRelease?.number == 2)
        #expect(!FileManager.default.fileExists(atPath: Self.client(folder).journalFile.path))
    }

    @Test("a switch moves, copies and removes, then saves the new state and drops its journal")
    func switches() throws {
        try withTemporaryDirectorySync { folder in
            let journal = try Self.prepare(folder)
            try Self.client(folder).switchRelease(journal)
            try Self.release2(folder)
            let modified = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("a").path)[.modificationDate] as? Date
            #expect(modified.map { Int64($0.timeIntervalSince1970) } != nil)
        }
    }

    /// `rename(2)` of `source` to `destination`: a step of a switch, as the switch takes it.
    static func rename(_ source: URL, to destination: URL) throws {
        try #require(Foundation.rename(source.path, destination.path) == 0, "errno \(errno)")
    }

    @Test("a switch killed after any number of its steps is finished by the next reader", arguments: 0...4)
    func killedAfter(steps: Int) throws {
        try withTemporaryDirectorySync { folder in
            let journal = try Self.prepare(folder)
            let client = Self.client(folder)
            // What a sync killed after `steps` steps left: the journal, and that many steps done.
            try client.folder.replace(.journal, with: Array(try JSONEncoder().encode(journal)))
            if steps >= 1 { try FileManager.default.removeItem(at: folder.appendingPathComponent("old")) }
            if steps >= 2 {
                try Self.rename(
                    client.directory.appendingPathComponent(StagingFolder.path).appendingPathComponent(ReleaseSwitchTests.sha("a2")),
                    to: folder.appendingPathComponent("a")
                )
            }
            if steps >= 3 {
                try FileManager.default.createDirectory(at: folder.appendingPathComponent("b"), withIntermediateDirectories: true)
                try FileManager.default.copyItem(
                    at: client.directory.appendingPathComponent(StagingFolder.path).appendingPathComponent(ReleaseSwitchTests.sha("same")),
                    to: folder.appendingPathComponent("b/c")
                )
            }
            if steps >= 4 {
                try Self.rename(
                    client.directory.appendingPathComponent(StagingFolder.path).appendingPathComponent(ReleaseSwitchTests.sha("same")),
                    to: folder.appendingPathComponent("d")
                )
            }
            #expect(client.currentRelease?.number == 1, "the state is saved last")
            let seen = try client.withCurrentRelease { $0?.number }
            #expect(seen == 2)
            try Self.release2(folder)
        }
    }

    @Test("a switch that could not finish (a file where a folder must go) is refused before its journal")
    func refusedBeforeTheJournal() throws {
        try withTemporaryDirectorySync { folder in
            var journal = try Self.prepare(folder)
            _ = try folder.write(Data("a file".utf8), to: "b")
            #expect(throws: SyncError.self) { try Self.client(folder).switchRelease(journal) }
            #expect(!FileManager.default.fileExists(atPath: Self.client(folder).journalFile.path))
            #expect(Self.client(folder).currentRelease?.number == 1)
            #expect(try Data(contentsOf: folder.appendingPathComponent("a")) == Data("a1".utf8))
            // The same, when the release removes that file: then the folder may take its place.
            journal.removals.append("b")
            try Self.client(folder).switchRelease(journal)
            #expect(try Data(contentsOf: folder.appendingPathComponent("b/c")) == Data("same".utf8))
        }
    }
}

func withTemporaryDirectorySync<Result>(_ body: (URL) throws -> Result) throws -> Result {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("depot-switch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}
