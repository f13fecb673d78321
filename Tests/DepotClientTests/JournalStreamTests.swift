import DepotAPI
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// The switch journal and the staged record, written a part at a time (``JSONStream``), read
/// back as what was written, by the decoder every reader of them uses.
@Suite("Journal written as it goes")
struct JournalStreamTests {
    static let cases: [(String, ReleaseJournal)] = [
        ("nothing to do", ReleaseJournal(state: ReleaseSwitchTests.held(2), moves: [], removals: [])),
        (
            "moves, a copy, a time, removals",
            ReleaseJournal(
                state: ReleaseSwitchTests.held(2),
                moves: [
                    .init(staged: ReleaseSwitchTests.sha("a"), path: "a", copy: true, modified: 1_700_000_000),
                    .init(staged: ReleaseSwitchTests.sha("a"), path: "b/\"quoted\" ü", copy: false, modified: nil),
                ],
                removals: ["old", "gone/x"]
            )
        ),
        (
            "removals done",
            ReleaseJournal(state: ReleaseSwitchTests.held(2), moves: [], removals: ["old"], removalsDone: true)
        ),
        ("a release folder", ReleaseJournal(state: ReleaseSwitchTests.held(2), moves: [], removals: [], tree: "2-0123456789abcdef")),
        (
            "folders staged whole, format 2",
            ReleaseJournal(state: ReleaseSwitchTests.held(2), moves: [], removals: [], folders: ["assets", "new/x"], format: 2)
        ),
        (
            // Many moves, past the stream's buffer: written in several parts.
            "20,000 moves",
            ReleaseJournal(
                state: ReleaseSwitchTests.held(2),
                moves: (0..<20_000).map {
                    .init(staged: ReleaseSwitchTests.sha("\($0)"), path: "assets/\($0).bin", copy: false, modified: Int64($0))
                },
                removals: []
            )
        ),
    ]

    @Test("each journal reads back as written, from parts of at most the buffer's size", arguments: cases)
    func journals(_ name: String, journal: ReleaseJournal) throws {
        var parts: [[UInt8]] = []
        var stream = JSONStream { parts.append($0) }
        try journal.encode(into: &stream)
        try stream.flush()
        #expect(parts.allSatisfy { $0.count < JSONStream.bufferBytes + 1024 }, "\(name)")
        #expect(try JSONDecoder().decode(ReleaseJournal.self, from: Data(parts.joined())) == journal, "\(name)")
    }

    @Test("a staged record reads back as written, with and without a base", arguments: [nil, String(repeating: "e", count: 64)])
    func stagedRecord(base: String?) throws {
        let staged = StagedRelease(base: base, journal: Self.cases[1].1, pagesBefore: [String(repeating: "f", count: 64)])
        var bytes: [UInt8] = []
        var stream = JSONStream { bytes += $0 }
        try staged.encode(into: &stream)
        try stream.flush()
        #expect(try JSONDecoder().decode(StagedRelease.self, from: Data(bytes)) == staged)
    }
}

/// The journal's format: a journal of the previous format (no `format`, no `folders`), left by
/// a client before this one, is carried out; one of a format this client does not know is
/// refused in one line, not half carried out.
@Suite("Journal formats")
struct JournalFormatTests {
    @Test("a format 1 journal (as the previous version wrote it) is carried out by the next reader")
    func previousFormat() throws {
        try withTemporaryDirectorySync { folder in
            let change = SwitchCrashTests.Change.mixed
            try change.prepare(folder)
            let written = try JSONEncoder().encode(change.journal)
            #expect(!String(decoding: written, as: UTF8.self).contains("format"), "written as format 1 was")
            let reader = ReleaseSwitchTests.client(folder)
            try reader.folder.replace(.journal, with: Array(written))
            #expect(try reader.withCurrentRelease { $0?.number } == 2)
            #expect(try SwitchCrashTests.files(folder) == change.after)
        }
    }

    @Test("a journal of a later format is refused, saying so, and nothing is changed")
    func laterFormat() throws {
        try withTemporaryDirectorySync { folder in
            let change = SwitchCrashTests.Change.newFolder
            try change.prepare(folder)
            var journal = change.journal
            journal.format = ReleaseJournal.currentFormat + 1
            let reader = ReleaseSwitchTests.client(folder)
            try reader.folder.replace(.journal, with: Array(try JSONEncoder().encode(journal)))
            let error = #expect(throws: SyncError.self) { try reader.withCurrentRelease { $0?.number } }
            #expect(error?.message.contains("format \(ReleaseJournal.currentFormat + 1), which this version of Depot does not read") == true)
            #expect(try SwitchCrashTests.files(folder) == change.before)
        }
    }
}
