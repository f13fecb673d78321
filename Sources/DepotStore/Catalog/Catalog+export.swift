import GRDB

/// What an export folder may keep (``ExportFolder``): everything the catalog still stores, read
/// in whole sets. Periodic work, after retention, never on the way of a publish or a request.
extension Catalog {
    /// The ids of the stored releases.
    public func storedReleases() async throws -> Set<String> {
        try await database.read { try String.fetchSet($0, sql: "SELECT id FROM release") }
    }

    /// The SHA-256 of the stored pages.
    public func storedPages() async throws -> Set<String> {
        try await database.read { try String.fetchSet($0, sql: "SELECT sha256 FROM release_page") }
    }

    /// The stored patches, files' and documents', each as `{from}/{to}`: its path under
    /// `/deltas/`.
    public func storedPatches() async throws -> Set<String> {
        try await database.read { db in
            try String.fetchSet(
                db,
                sql: """
                    SELECT from_sha256 || '/' || to_sha256 FROM file_delta WHERE blob_sha256 IS NOT NULL
                    UNION SELECT source || '/' || target FROM document_delta
                    """
            )
        }
    }
}
