import DepotTestFixtures
import Foundation

extension Fixture {
    /// The files in a server data directory's `tmp/` and its subfolders (where batches write).
    package static func temporaryFiles(in dataDirectory: URL) throws -> [String] {
        try files(below: dataDirectory.appendingPathComponent("tmp"))
    }

    /// The names of the files in a server data directory's blob store.
    package static func blobFiles(_ dataDirectory: URL) -> Set<String> {
        let files = (try? files(below: dataDirectory.appendingPathComponent("blobs"))) ?? []
        return Set(files.map { String($0.split(separator: "/").last!) })
    }
}
