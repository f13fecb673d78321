import DepotManifest
import GRDB

/// A release as `depot release ls` lists it.
public struct ReleaseSummary: Hashable, Sendable, Codable {
    /// The SHA-256 of the release document: its URL is `/releases/{id}`.
    public let id: String
    public let number: Int64
    /// The id of the release it was made from.
    public let parent: String?
    /// The channel it was published to.
    public let channel: String
    public let createdAt: Int64
    public let files: Int64
    public let bytes: Int64
    /// Whether apps should apply it at once.
    public let critical: Bool
    /// The lowest app version that can use it (``DepotManifest/ClientVersion``).
    public let minimumClientVersion: String?
    /// The publisher's note (`depot publish --message`).
    public let message: String?
    let pageBits: Int

    static let columns = "id, number, parent, channel, created_at, files, bytes, page_bits, critical, minimum_client_version, message"

    init(row: Row) {
        id = row["id"]
        number = row["number"]
        parent = row["parent"]
        channel = row["channel"]
        createdAt = row["created_at"]
        files = row["files"]
        bytes = row["bytes"]
        critical = row["critical"]
        minimumClientVersion = row["minimum_client_version"]
        message = row["message"]
        pageBits = row["page_bits"]
    }

    static func fetch(id: String, in db: Database) throws -> ReleaseSummary? {
        try Row.fetchOne(db, sql: "SELECT \(columns) FROM release WHERE id = ?", arguments: [id]).map(Self.init(row:))
    }

    static func fetch(number: Int64, in db: Database) throws -> ReleaseSummary? {
        try Row.fetchOne(db, sql: "SELECT \(columns) FROM release WHERE number = ?", arguments: [number]).map(Self.init(row:))
    }
}

/// Where a channel points.
public struct ChannelState: Hashable, Sendable {
    public let name: String
    public let release: ReleaseSummary
    /// Grows with every move of the channel.
    public let serial: Int64
    public let updatedAt: Int64
    /// The rollout under way, which the channel's document names, if any.
    public let rollout: Rollout?
}

/// How one release differs from another, path by path.
public struct ReleaseDiff: Sendable {
    public var added: [ReleaseEntry] = []
    /// Each changed path's entry before and after.
    public var changed: [(before: ReleaseEntry, after: ReleaseEntry)] = []
    public var removed: [ReleaseEntry] = []

    public var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }
}
