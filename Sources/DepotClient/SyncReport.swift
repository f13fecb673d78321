/// What a sync did.
public struct SyncReport: Sendable, Codable, Equatable {
    /// What happened to one file.
    public enum Outcome: String, Sendable, Codable {
        /// The local copy already matched the manifest.
        case unchanged
        /// Downloaded as gzip and decoded.
        case gzip
        /// Downloaded whole, without compression.
        case full
        /// An interrupted download was completed with a range request.
        case resumed
        /// Rebuilt from a delta.
        case delta
        /// Removed because it left the manifest.
        case removed
        /// Could not be synced; the previous local copy, if any, is untouched.
        case failed
    }

    public struct File: Sendable, Codable, Equatable {
        public var path: String
        public var outcome: Outcome
        /// Bytes received for this file.
        public var bytesTransferred: Int64
        /// The size of the file: what a plain full download would have cost.
        public var size: Int64
        public var error: String?

        /// Bytes a plain full download would have cost and this one did not.
        public var bytesSaved: Int64 {
            outcome == .unchanged || outcome == .removed || outcome == .failed ? 0 : max(0, size - bytesTransferred)
        }
    }

    /// Whether the server answered the manifest poll with 304.
    public var manifestNotModified: Bool
    /// Bytes received for the manifest itself.
    public var manifestBytes: Int64
    public var files: [File]

    public init(manifestNotModified: Bool, manifestBytes: Int64, files: [File]) {
        self.manifestNotModified = manifestNotModified
        self.manifestBytes = manifestBytes
        self.files = files
    }

    enum CodingKeys: String, CodingKey {
        case manifestNotModified, manifestBytes, files, bytesTransferred, bytesSaved
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        manifestNotModified = try container.decode(Bool.self, forKey: .manifestNotModified)
        manifestBytes = try container.decode(Int64.self, forKey: .manifestBytes)
        files = try container.decode([File].self, forKey: .files)
    }

    /// Encodes the totals too, for `depot sync --json`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(manifestNotModified, forKey: .manifestNotModified)
        try container.encode(manifestBytes, forKey: .manifestBytes)
        try container.encode(files, forKey: .files)
        try container.encode(bytesTransferred, forKey: .bytesTransferred)
        try container.encode(bytesSaved, forKey: .bytesSaved)
    }

    public var bytesTransferred: Int64 { manifestBytes + files.reduce(0) { $0 + $1.bytesTransferred } }
    public var bytesSaved: Int64 { files.reduce(0) { $0 + $1.bytesSaved } }
    public var updatedCount: Int { files.filter { [.gzip, .full, .resumed, .delta].contains($0.outcome) }.count }
    public var failedCount: Int { files.filter { $0.outcome == .failed }.count }
}
