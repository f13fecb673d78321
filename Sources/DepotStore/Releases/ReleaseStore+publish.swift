import DepotHTTP
import DepotManifest
import GRDB

extension ReleaseStore {
    /// The content of one publish.
    public struct Publication: Sendable {
        public var path: String
        public var blob: BlobRecord
        public var contentType: String
        public var now: HTTPDate
        /// How many versions of the path stay available; older ones are retired.
        public var keepVersions: Int

        public init(path: String, blob: BlobRecord, contentType: String, now: HTTPDate, keepVersions: Int) {
            self.path = path
            self.blob = blob
            self.contentType = contentType
            self.now = now
            self.keepVersions = keepVersions
        }
    }

    /// What a publish did.
    public struct PublishResult: Sendable {
        /// The version the publish made; for an unchanged publish, the live version as read
        /// right after.
        public let version: FileVersion
        /// True when the live version already had these bytes and this type: nothing changed.
        public let unchanged: Bool
        /// The serial of the default channel after the publish.
        public let channelSerial: Int64
        /// The number of the release the publish made; `nil` when unchanged.
        public var releaseNumber: Int64? = nil
    }

    /// Makes `publication` the live version of its path on the default channel: a release of the
    /// channel's release plus this one file (``commit(_:)``).
    ///
    /// - Throws: ``CatalogError`` with code ``CatalogError/Code/conflict`` when the path collides
    ///   with a live one (``PortablePath``): nothing is changed.
    public func publish(_ publication: Publication) async throws -> PublishResult {
        let outcome = try await commit(
            ReleaseCommit(
                channel: ChannelName.default,
                files: [.init(path: publication.path, blob: publication.blob, contentType: publication.contentType)],
                now: publication.now,
                keepVersions: publication.keepVersions
            )
        )
        var version = outcome.files.first
        if version == nil { version = try await liveVersion(of: publication.path) }
        guard let version else {
            throw CatalogError("\(publication.path) is not in the release it was just published to")
        }
        return PublishResult(
            version: version,
            unchanged: !outcome.created,
            channelSerial: outcome.channelSerial,
            releaseNumber: outcome.created ? outcome.release?.number : nil
        )
    }

    /// Takes `path` out of the default channel and retires its versions: a release without it.
    /// Returns the path as stored (which may differ from `path` in Unicode spelling), or `nil`
    /// when the path was not published.
    public func unpublish(path: String, now: HTTPDate) async throws -> String? {
        do {
            return try await commit(ReleaseCommit(channel: ChannelName.default, deletions: [path], now: now, keepVersions: 1)).removed.first
        } catch let error as CatalogError where error.code == .notFound {
            return nil
        }
    }
}

extension FileVersion {
    static func live(path: String, channel: String, in db: Database) throws -> FileVersion? {
        try FileVersion.fetchOne(
            db.cachedStatement(sql: "SELECT file_version.* FROM channel_file JOIN file_version USING (path, version) WHERE channel = ? AND path = ?"),
            arguments: [channel, path]
        )
    }
}
