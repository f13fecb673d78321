import DepotFiles
import SystemPackage

extension BlobStore {
    /// Reads stored blobs whole, synchronously, through ``DepotFiles/ContainedFolder`` (no link
    /// followed): for work that runs on a thread of its own and reads many small blobs, as a
    /// page's pack does. One descriptor of the store's folder for all its reads.
    public struct Reader: Sendable {
        let folder: ContainedFolder

        /// The bytes of the content `sha256`, or (`gzip`) of its gzip variant; `nil` when it is
        /// not stored.
        public func contents(ofSHA256 sha256: String, gzip: Bool = false) throws -> [UInt8]? {
            guard sha256.count == 64, sha256.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
            return try folder.read("\(sha256.prefix(2))/\(sha256)\(gzip ? ".gz" : "")")
        }
    }

    /// A ``Reader`` of this store; throws when its folder cannot be opened.
    public func reader() throws -> Reader {
        Reader(folder: try ContainedFolder(root: directory.string, creating: false))
    }
}
