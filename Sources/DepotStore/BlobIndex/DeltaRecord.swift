import DepotManifest
import GRDB

/// A stored patch: the gzip-compressed VCDIFF that turns the content `fromSHA256` into the
/// content `toSHA256`, kept in the blob store as the blob `blobSHA256`.
public struct DeltaRecord: Hashable, Sendable {
    public let fromSHA256: String
    public let toSHA256: String
    /// The SHA-256 of the gzip bytes, which is also their name in the blob store.
    public let blobSHA256: String
    /// The length of the gzip bytes.
    public let size: Int64

    public init(fromSHA256: String, toSHA256: String, blobSHA256: String, size: Int64) {
        self.fromSHA256 = fromSHA256
        self.toSHA256 = toSHA256
        self.blobSHA256 = blobSHA256
        self.size = size
    }

    /// `/deltas/{from}/{to}`: the immutable URL of the patch (``DepotManifest/TreeObject/delta(from:to:)``).
    public var url: String { (try? TreeObject.delta(from: fromSHA256, to: toSHA256))?.url ?? "" }

    /// The stored patches to each of `targets`, by target, each target's ordered by source: one
    /// query for a page's entries, not one per entry.
    static func all(to targets: [String], in db: Database) throws -> [String: [DeltaRecord]] {
        guard !targets.isEmpty else { return [:] }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT from_sha256, to_sha256, blob_sha256, size FROM file_delta
                WHERE blob_sha256 IS NOT NULL AND to_sha256 IN (\(databaseQuestionMarks(count: targets.count))) ORDER BY from_sha256
                """,
            arguments: StatementArguments(targets)
        )
        return Dictionary(
            grouping: rows.map {
                DeltaRecord(fromSHA256: $0["from_sha256"], toSHA256: $0["to_sha256"], blobSHA256: $0["blob_sha256"], size: $0["size"])
            },
            by: \.toSHA256
        )
    }
}
