import DepotHTTP

/// A blob some version refers to: what `/blobs/` may serve.
public struct PublishedBlob: Hashable, Sendable {
    public let record: BlobRecord
    /// When it was first published: the `Last-Modified` of its immutable URL.
    public let firstPublished: HTTPDate
}
