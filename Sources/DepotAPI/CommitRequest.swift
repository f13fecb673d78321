/// The body of `POST /v1/releases`: a release of blobs uploaded before, committed all or
/// nothing.
public struct CommitRequest: Codable, Sendable, Equatable {
    /// One file of the release.
    public struct File: Codable, Sendable, Equatable {
        public var path: String
        public var sha256: String
        /// The type served; from the path's extension when absent.
        public var contentType: String?

        public init(path: String, sha256: String, contentType: String? = nil) {
            self.path = path
            self.sha256 = sha256
            self.contentType = contentType
        }
    }

    /// The channel to publish to; `stable` when absent.
    public var channel: String?
    public var files: [File]?
    /// Paths to take out.
    public var delete: [String]?
    /// The release holds exactly `files`.
    public var replace: Bool?

    public init(channel: String? = nil, files: [File]? = nil, delete: [String]? = nil, replace: Bool? = nil) {
        self.channel = channel
        self.files = files
        self.delete = delete
        self.replace = replace
    }
}
