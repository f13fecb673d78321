import DepotHTTP

/// A consistent view of what is published, read in one transaction.
public struct CatalogSnapshot: Sendable {
    /// The live version of each published path.
    public let live: [String: FileVersion]
    /// Every blob a version still refers to, retired versions included, by SHA-256: what
    /// `/blobs/` may serve.
    public let blobs: [String: PublishedBlob]
    /// Every stored patch.
    public let deltas: [DeltaRecord]
    /// The manifest that matches `live`.
    public let manifest: StoredManifest
}

/// The manifest document as stored: its bytes are served as they are.
public struct StoredManifest: Hashable, Sendable {
    public let serial: Int64
    /// The JSON document.
    public let document: [UInt8]
    /// Lower-case hex SHA-256 of `document`.
    public let sha256: String
    public let generatedAt: Int64
}

/// A blob some version refers to.
public struct PublishedBlob: Hashable, Sendable {
    public let record: BlobRecord
    /// When it was first published: the `Last-Modified` of its immutable URL.
    public let firstPublished: HTTPDate
}
