import DepotExport
import DepotFiles
import DepotManifest
import DepotTestFixtures
import Foundation
import Testing
import _NIOFileSystem

/// Links planted in an export folder by whoever else can write it (the web server's user): each
/// is refused with one line, and nothing outside the folder is read, written or removed.
@Suite("Links planted in an export folder")
struct ExportFolderLinkTests {
    /// A folder `export` and, beside it, `victim` holding the file `keep`.
    static func withFolders(_ body: (URL, URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { root in
            let victim = root.appendingPathComponent("victim")
            try root.write(Data("precious\n".utf8), to: "victim/keep")
            let export = root.appendingPathComponent("export")
            try FileManager.default.createDirectory(at: export, withIntermediateDirectories: true)
            try await body(export, victim)
            #expect(try Data(contentsOf: victim.appendingPathComponent("keep")) == Data("precious\n".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: victim.path) == ["keep"], "nothing written beside it")
        }
    }

    static func link(_ name: String, in folder: URL, to target: URL) throws {
        let link = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    }

    @Test("a .partial or .lock link: the folder is not opened, the link's target neither emptied nor made")
    func dotNames() async throws {
        for name in [".partial", ".lock"] {
            try await Self.withFolders { export, victim in
                let target = name == ".partial" ? victim : victim.appendingPathComponent("made")
                try Self.link(name, in: export, to: target)
                #expect(throws: FolderError.self, "\(name)") { try ExportFolder(root: FilePath(export.path)) }
            }
        }
    }

    @Test("a link for a folder of objects (blobs, pages, releases): placing through it is refused, and the sweep does not follow it")
    func objectFolders() async throws {
        let sha = Fixture.sha256(Data("content".utf8))
        for (name, object) in try [("blobs", TreeObject.blob(sha)), ("pages", .page(sha)), ("releases", .release(sha))] {
            try await Self.withFolders { export, victim in
                try Self.link(name, in: export, to: victim)
                let folder = try ExportFolder(root: FilePath(export.path))
                #expect(throws: FolderError.self, "\(name)") { try folder.place(object, bytes: Array("content".utf8)) }
                #expect(throws: FolderError.self, "\(name)") { try folder.sweep { _ in false } }
            }
        }
    }

    @Test("a link in an object's place: refused, the file it points to neither read nor rewritten")
    func objectLink() async throws {
        let sha = Fixture.sha256(Data("content".utf8))
        try await Self.withFolders { export, victim in
            try Self.link("blobs/\(sha)", in: export, to: victim.appendingPathComponent("keep"))
            let folder = try ExportFolder(root: FilePath(export.path))
            #expect(throws: FolderError.self) { try folder.read(.blob(sha)) }
            #expect(throws: FolderError.self) { try folder.place(.blob(sha), bytes: Array("content".utf8)) }
            // The sweep removes the link itself, never what it points to.
            #expect(try folder.sweep { _ in false } == 1)
            #expect(!FileManager.default.fileExists(atPath: export.appendingPathComponent("blobs/\(sha)").path))
        }
    }

    @Test("without links, the same calls work: the table's refusals are the links'")
    func withoutLinks() async throws {
        let sha = Fixture.sha256(Data("content".utf8))
        try await Self.withFolders { export, _ in
            let folder = try ExportFolder(root: FilePath(export.path))
            #expect(try folder.place(.blob(sha), bytes: Array("content".utf8)))
            try folder.barrier()
            #expect(try folder.read(.blob(sha)) == Array("content".utf8))
            #expect(try folder.sweep { _ in false } == 1)
        }
    }
}
