/// The reply to `PUT /v1/blobs/{sha256}`.
public struct BlobReply: Codable, Sendable, Equatable {
    public var sha256: String
    public var size: Int64
    /// False when the server held the content already and did not read the body.
    public var stored: Bool

    public init(sha256: String, size: Int64, stored: Bool) {
        self.sha256 = sha256
        self.size = size
        self.stored = stored
    }
}

/// The body of `POST /v1/blobs/missing`: the blobs a publisher is about to list.
public struct MissingBlobsRequest: Codable, Sendable, Equatable {
    /// SHA-256s in lower-case hex.
    public var sha256: [String]

    public init(sha256: [String]) {
        self.sha256 = sha256
    }
}

/// The reply to `POST /v1/blobs/missing`: which of the blobs asked about the server lacks, in
/// the order asked.
public struct MissingBlobsReply: Codable, Sendable, Equatable {
    public var missing: [String]

    public init(missing: [String]) {
        self.missing = missing
    }
}

/// The reply to `POST /v1/blobs`, a batch (``BlobBatch``): how many blobs it stored.
public struct BlobBatchReply: Codable, Sendable, Equatable {
    public var stored: Int

    public init(stored: Int) {
        self.stored = stored
    }
}
