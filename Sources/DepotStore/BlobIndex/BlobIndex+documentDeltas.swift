import DepotHTTP
import DepotManifest
import Foundation
import GRDB

/// Patches between documents (migration 0006): a release document from its parent's, and each
/// changed page from the page at the same place in the parent (``ReleaseDocument/pageBases(from:)``).
/// They are made once, after the release is committed, for those pairs only: an anonymous
/// request for any other pair finds nothing, and never makes the server encode.
extension BlobIndex {
    /// Two documents of one kind, the patch from the first to the second still to make.
    public struct DocumentPair: Sendable {
        public let source: String
        public let target: String
        public let sourceBytes: [UInt8]
        public let targetBytes: [UInt8]
    }

    /// A stored patch between two documents.
    public struct DocumentDelta: Sendable {
        /// The gzip-compressed VCDIFF.
        public let patch: [UInt8]
        /// The target's gzip download, which the patch saves.
        public let fullSize: Int64
        /// When the target was made.
        public let targetCreatedAt: Int64
    }

    /// The pairs of documents whose patch a client holding the parent of `channel`'s release asks
    /// for, less those already made: O(pages that changed).
    public func missingDocumentPatches(channel: String) async throws -> [DocumentPair] {
        try await database.read { db in
            guard let id = try ReleaseWriter.channel(channel, in: db)?.release.id,
                let release = try ReleaseTables.releaseDocument(id, in: db), let parentID = release.document.parent,
                let parent = try ReleaseTables.releaseDocument(parentID, in: db)
            else { return [] }
            var pairs = [(source: parentID, target: id, sourceBytes: parent.bytes, targetBytes: release.bytes)]
            for (page, base) in release.document.pageBases(from: parent.document).sorted(by: { $0.key < $1.key }) {
                guard let target = try ReleaseTables.pageBytes(page, in: db), let source = try ReleaseTables.pageBytes(base, in: db) else { continue }
                pairs.append((base, page, source, target))
            }
            return try pairs.filter { pair in
                try !Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM document_delta WHERE source = ? AND target = ?)",
                    arguments: [pair.source, pair.target]
                )!
            }.map { DocumentPair(source: $0.source, target: $0.target, sourceBytes: $0.sourceBytes, targetBytes: $0.targetBytes) }
        }
    }

    /// A patch between two documents, to record.
    public struct DocumentDeltaRecord: Sendable {
        public var source: String
        public var target: String
        public var patch: [UInt8]
        /// The gzip size of the whole target document.
        public var fullSize: Int

        public init(source: String, target: String, patch: [UInt8], fullSize: Int) {
            self.source = source
            self.target = target
            self.patch = patch
            self.fullSize = fullSize
        }
    }

    /// Records the patches of a channel move's documents in one transaction: one commit to
    /// disk however many pages the move changed.
    public func recordDocumentDeltas(_ deltas: [DocumentDeltaRecord], now: HTTPDate) async throws {
        guard !deltas.isEmpty else { return }
        try await database.write { db in
            let statement = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO document_delta (source, target, patch, full_size, created_at) VALUES (?, ?, ?, ?, ?)"
            )
            for delta in deltas {
                try statement.execute(arguments: [delta.source, delta.target, Data(delta.patch), delta.fullSize, now.secondsSince1970])
            }
        }
    }

    /// The stored patch from document `from` to `to`, if one was made.
    public func documentDelta(from: String, to: String) async throws -> DocumentDelta? {
        try await database.read { db -> DocumentDelta? in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT patch, full_size, created_at FROM document_delta WHERE source = ? AND target = ?",
                    arguments: [from, to]
                )
            else { return nil }
            let patch: Data = row["patch"]
            let createdAt: Int64 = try ReleaseTables.storedDocument(to, in: db)?.createdAt ?? row["created_at"]
            return DocumentDelta(patch: Array(patch), fullSize: row["full_size"], targetCreatedAt: createdAt)
        }
    }
}
