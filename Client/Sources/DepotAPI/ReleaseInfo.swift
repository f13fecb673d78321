/// A release as the publisher API describes it.
public struct ReleaseInfo: Codable, Sendable, Equatable {
    /// The SHA-256 of its release document.
    public var id: String
    public var number: Int64
    /// Where its release document is served.
    public var url: String
    /// The channel it was committed to.
    public var channel: String
    /// An HTTP date.
    public var createdAt: String
    public var files: Int64
    public var bytes: Int64
    /// Whether apps should apply it at once (absent: no).
    public var critical: Bool?
    /// The lowest app version that can use it.
    public var minimumClientVersion: String?
    /// The publisher's note (`depot publish --message`).
    public var message: String?

    public init(
        id: String,
        number: Int64,
        url: String,
        channel: String,
        createdAt: String,
        files: Int64,
        bytes: Int64,
        critical: Bool? = nil,
        minimumClientVersion: String? = nil,
        message: String? = nil
    ) {
        self.id = id
        self.number = number
        self.url = url
        self.channel = channel
        self.createdAt = createdAt
        self.files = files
        self.bytes = bytes
        self.critical = critical
        self.minimumClientVersion = minimumClientVersion
        self.message = message
    }
}

/// The reply to `GET /v1/releases`, newest first.
public struct ReleaseList: Codable, Sendable, Equatable {
    public var releases: [ReleaseInfo]

    public init(releases: [ReleaseInfo]) {
        self.releases = releases
    }
}
