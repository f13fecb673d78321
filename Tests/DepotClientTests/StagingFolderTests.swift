import DepotFiles
import Foundation
import Testing

@testable import DepotClient

/// A switch's move of a staged file is one rename through the sync folder's descriptor; a
/// missing destination folder is made, never taken for a file moved before, and a link on the
/// way is refused.
@Suite("Staging folder")
struct StagingFolderTests {
    static let sha256 = String(repeating: "ab", count: 32)

    static func staging(_ root: URL) throws -> StagingFolder {
        let folder = try ContainedFolder(root: root.path)
        try folder.makeFolder(StagingFolder.path)
        return StagingFolder(folder)
    }

    @Test("a staged file is moved, from its subfolder or the flat name of older clients; a second move finds it gone", arguments: [false, true])
    func move(flat: Bool) throws {
        try withTemporaryDirectorySync { root in
            let staging = try Self.staging(root)
            let source =
                flat ? FolderFile(folder: staging.folder, path: StagingFolder.path + "/" + Self.sha256) : try staging.fileToWrite(Self.sha256)
            try source.write(Data("content".utf8))
            #expect(try staging.move(Self.sha256, to: "a.bin"))
            #expect(try Data(contentsOf: root.appendingPathComponent("a.bin")) == Data("content".utf8))
            #expect(try !staging.move(Self.sha256, to: "a.bin"))
            #expect(try Data(contentsOf: root.appendingPathComponent("a.bin")) == Data("content".utf8))
        }
    }

    @Test("a destination whose folder is missing gets it: the move is not taken for one done before")
    func missingFolder() throws {
        try withTemporaryDirectorySync { root in
            let staging = try Self.staging(root)
            try staging.fileToWrite(Self.sha256).write(Data("content".utf8))
            #expect(try staging.move(Self.sha256, to: "missing/a.bin"))
            #expect(try Data(contentsOf: root.appendingPathComponent("missing/a.bin")) == Data("content".utf8))
        }
    }

    @Test("a link on the destination's way is refused; the staged file stays, and nothing reaches the link's target")
    func linkOnTheWay() throws {
        try withTemporaryDirectorySync { root in
            let outside = root.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            let sync = root.appendingPathComponent("sync")
            let staging = try Self.staging(sync)
            try FileManager.default.createSymbolicLink(at: sync.appendingPathComponent("img"), withDestinationURL: outside)
            let source = try staging.fileToWrite(Self.sha256)
            try source.write(Data("content".utf8))
            #expect(throws: SyncError.self) { try staging.move(Self.sha256, to: "img/a.bin") }
            #expect(source.exists)
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        }
    }
}
