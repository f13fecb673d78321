import GRDB

/// What an export folder may keep (``ExportFolder``): everything the catalog still stores, read
/// in whole sets. Periodic work, after retention, never on the way of a publish or a request.
extension Maintenance {
    /// The ids of the stored releases.
    public func storedReleases() async throws -> Set<String> {
        try await database.read(ReleaseTables.releaseIDs(in:))
    }

    /// The SHA-256 of the stored pages.
    public func storedPages() async throws -> Set<String> {
        try await database.read(ReleaseTables.pageHashes(in:))
    }

    /// The stored patches, files' and documents', each as `{from}/{to}`: its path under
    /// `/deltas/`.
    public func storedPatches() async throws -> Set<String> {
        try await database.read(BlobTables.storedPatches(in:))
    }
}
