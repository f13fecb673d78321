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
    /// The id of the release the channel must be on for the commit to apply: a publisher that
    /// sends only what changed since that release names it, and gets 409 Conflict, with nothing
    /// changed, when the channel has moved since.
    public var base: String?
    /// The new release is critical: apps should apply it at once.
    public var critical: Bool?
    /// The lowest app version that can use the new release (`2`, `2.3`, `2.3.1`): older apps
    /// keep to the newest earlier release they can use.
    public var minimumClientVersion: String?
    /// A note on the new release (who, why), shown with it and in the audit trail: at most
    /// ``maximumMessageBytes`` bytes of UTF-8, no control characters.
    public var message: String?

    /// The longest ``message``, in bytes of UTF-8: a limit in characters let a few characters of
    /// thousands of combining marks each through.
    public static let maximumMessageBytes = 500

    public init(
        channel: String? = nil,
        files: [File]? = nil,
        delete: [String]? = nil,
        replace: Bool? = nil,
        base: String? = nil,
        critical: Bool? = nil,
        minimumClientVersion: String? = nil,
        message: String? = nil
    ) {
        self.channel = channel
        self.files = files
        self.delete = delete
        self.replace = replace
        self.base = base
        self.critical = critical
        self.minimumClientVersion = minimumClientVersion
        self.message = message
    }
}
