/// A channel as the publisher API describes it.
public struct ChannelInfo: Codable, Sendable, Equatable {
    public var name: String
    public var serial: Int64
    /// An HTTP date.
    public var updatedAt: String
    public var release: ReleaseInfo

    public init(name: String, serial: Int64, updatedAt: String, release: ReleaseInfo) {
        self.name = name
        self.serial = serial
        self.updatedAt = updatedAt
        self.release = release
    }
}

/// The reply to `GET /v1/channels`.
public struct ChannelList: Codable, Sendable, Equatable {
    public var channels: [ChannelInfo]

    public init(channels: [ChannelInfo]) {
        self.channels = channels
    }
}

/// The body of `POST /v1/channels/{name}/promote`.
public struct PromoteRequest: Codable, Sendable, Equatable {
    /// The release: its number, or its id.
    public var release: String

    public init(release: String) {
        self.release = release
    }
}

/// The reply to a promote or a rollback: where the channel was and is, and how many paths the
/// move added, changed and removed.
public struct MoveReply: Codable, Sendable, Equatable {
    public var channel: String
    public var serial: Int64
    public var from: ReleaseInfo?
    public var to: ReleaseInfo
    public var added: Int
    public var changed: Int
    public var removed: Int
    /// `true` when the move rolled a live rollout back: `from` is the rollout's release, the
    /// channel stays on `to`; absent otherwise.
    public var rolloutRolledBack: Bool?

    public init(
        channel: String,
        serial: Int64,
        from: ReleaseInfo?,
        to: ReleaseInfo,
        added: Int,
        changed: Int,
        removed: Int,
        rolloutRolledBack: Bool? = nil
    ) {
        self.channel = channel
        self.serial = serial
        self.from = from
        self.to = to
        self.added = added
        self.changed = changed
        self.removed = removed
        self.rolloutRolledBack = rolloutRolledBack
    }
}
