import DepotExport
import DepotFiles
import DepotTestFixtures
import Foundation
import Testing
import _NIOFileSystem

@Suite("Export folder lock")
struct ExportFolderLockTests {
    @Test(
        "a second writer of an export folder is refused while the first has it open, and let in once it is closed, even while a child process holds a copy of the lock's descriptor"
    )
    func oneWriter() async throws {
        try await withTemporaryDirectory { folder in
            let root = FilePath(folder.path)
            var first: ExportFolder? = try ExportFolder(root: root)
            #expect(throws: FolderError.self) { try ExportFolder(root: root) }
            try await ChildProcess.with("sleep", ["60"], input: try Self.descriptor(of: folder.appendingPathComponent(".lock"))) { _ in
                withExtendedLifetime(first) {}
                first = nil
                #expect(throws: Never.self) { try ExportFolder(root: root) }
            }
        }
    }

    /// The descriptor this process has open on `file`, found in `/proc/self/fd`.
    private static func descriptor(of file: URL) throws -> Int32 {
        let entries = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        let target = file.resolvingSymlinksInPath().path
        let found = entries.first { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == target }
        return try #require(found.flatMap { Int32($0) }, "no descriptor open on \(target)")
    }
}
