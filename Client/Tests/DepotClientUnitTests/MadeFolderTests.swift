import DepotFixtures
import Foundation
import Testing

@testable import DepotClient

/// What a failed first sync removes (``MadeFolder``): what it made, and the folders on the way
/// left empty; never a file another process put in the new folder meanwhile.
@Suite("Made folder")
struct MadeFolderTests {
    @Test("after files failed, what a first sync made stays only when it holds files staged or a download begun, for the next sync")
    func removeUnlessResumable() async throws {
        try await withTemporaryDirectory { root in
            let folder = root.appendingPathComponent("new")
            let manager = FileManager.default
            for own in ["partial", "staging"] {
                let made = try #require(MadeFolder(path: folder.path))
                for empty in ["partial", "staging/ab", "releases"] {
                    try manager.createDirectory(at: folder.appendingPathComponent(".depot/\(empty)"), withIntermediateDirectories: true)
                }
                try Data("lock".utf8).write(to: folder.appendingPathComponent(".depot/sync.lock"))
                try Data("begun".utf8).write(to: folder.appendingPathComponent(".depot/\(own)/a"))
                made.removeUnlessResumable()
                #expect(manager.fileExists(atPath: folder.appendingPathComponent(".depot/\(own)/a").path), "\(own)")
                try manager.removeItem(at: folder.appendingPathComponent(".depot/\(own)/a"))
                made.removeUnlessResumable()
                #expect(!manager.fileExists(atPath: folder.path), "nothing to resume: \(own)")
            }
        }
    }

    @Test("only .depot and the folders left empty go; a file another process wrote in the new folder keeps it, and its parents")
    func removesOnlyWhatItMade() async throws {
        try await withTemporaryDirectory { root in
            let folder = root.appendingPathComponent("new/inner")
            let made = try #require(MadeFolder(path: folder.path))
            #expect(made.name == "new" && made.folder == "new/inner")
            let manager = FileManager.default
            try manager.createDirectory(at: folder.appendingPathComponent(".depot/staging"), withIntermediateDirectories: true)
            try Data("staged".utf8).write(to: folder.appendingPathComponent(".depot/staging/a"))
            try Data("important".utf8).write(to: folder.appendingPathComponent("keep.txt"))
            made.remove()
            #expect(try String(contentsOf: folder.appendingPathComponent("keep.txt"), encoding: .utf8) == "important")
            #expect(!manager.fileExists(atPath: folder.appendingPathComponent(".depot").path))

            // With nothing but what the sync made, the whole chain goes.
            try manager.removeItem(at: folder.appendingPathComponent("keep.txt"))
            try manager.createDirectory(at: folder.appendingPathComponent(".depot/partial"), withIntermediateDirectories: true)
            made.remove()
            #expect(!manager.fileExists(atPath: root.appendingPathComponent("new").path))
            #expect(manager.fileExists(atPath: root.path))
        }
    }
}
