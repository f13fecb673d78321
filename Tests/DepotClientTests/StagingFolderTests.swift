import Foundation
import Testing

@testable import DepotClient

/// A switch's move of a staged file is one `rename(2)`; only a failed one is looked into, and a
/// missing destination folder must not pass for a file moved before.
@Suite("Staging folder")
struct StagingFolderTests {
    static let sha256 = String(repeating: "ab", count: 32)

    @Test("a staged file is moved, from its subfolder or the flat name of older clients; a second move finds it gone", arguments: [false, true])
    func move(flat: Bool) throws {
        try withTemporaryDirectorySync { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("staging"), withIntermediateDirectories: true)
            let staging = StagingFolder(root.appendingPathComponent("staging"))
            let source = flat ? URL(fileURLWithPath: staging.path + "/" + Self.sha256) : staging.fileToWrite(Self.sha256)
            try Data("content".utf8).write(to: source)
            let destination = root.appendingPathComponent("a.bin")
            #expect(try staging.move(Self.sha256, to: destination))
            #expect(try Data(contentsOf: destination) == Data("content".utf8))
            #expect(try !staging.move(Self.sha256, to: destination))
            #expect(try Data(contentsOf: destination) == Data("content".utf8))
        }
    }

    @Test("a destination whose folder is missing is an error, not a file moved before; the staged file stays")
    func missingFolder() throws {
        try withTemporaryDirectorySync { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("staging"), withIntermediateDirectories: true)
            let staging = StagingFolder(root.appendingPathComponent("staging"))
            let source = staging.fileToWrite(Self.sha256)
            try Data("content".utf8).write(to: source)
            #expect(throws: SyncError.self) { try staging.move(Self.sha256, to: root.appendingPathComponent("missing/a.bin")) }
            #expect(FileManager.default.fileExists(atPath: source.path))
        }
    }
}
