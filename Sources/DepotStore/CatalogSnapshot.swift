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
    /// How many times channels have moved: grows with every change of what is live.
    public let changes: Int64
}

/// A blob some version refers to.
public struct PublishedBlob: Hashable, Sendable {
    public let record: BlobRecord
    /// When it was first published: the `Last-Modified` of its immutable URL.
    public let firstPublished: HTTPDate
}
