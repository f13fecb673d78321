import DepotHTTP
import DepotManifest

extension ReleaseStore {
    /// One file of a release: the content to publish at `path`.
    public struct ReleaseFile: Sendable {
        public var path: String
        public var blob: BlobRecord
        public var contentType: String

        public init(path: String, blob: BlobRecord, contentType: String) {
            self.path = path
            self.blob = blob
            self.contentType = contentType
        }
    }

    /// A release to commit: the channel's release with `files` published and `deletions` taken
    /// out, or with `replace`, exactly `files`.
    public struct ReleaseCommit: Sendable {
        public var channel: String
        public var files: [ReleaseFile]
        public var deletions: [String]
        /// The release holds exactly `files`: every other path of the channel is deleted.
        public var replace: Bool
        public var now: HTTPDate
        /// How many versions of each path stay available beyond what channels point to.
        public var keepVersions: Int
        /// The id of the release the channel must be on; `nil` for any.
        public var base: String?
        /// Whether the new release is critical, and the lowest app version that can use it.
        public var critical = false
        public var minimumClientVersion: String?
        /// The publisher's note on the new release.
        public var message: String?

        public init(
            channel: String,
            files: [ReleaseFile] = [],
            deletions: [String] = [],
            replace: Bool = false,
            now: HTTPDate,
            keepVersions: Int,
            base: String? = nil
        ) {
            self.base = base
            self.channel = channel
            self.files = files
            self.deletions = deletions
            self.replace = replace
            self.now = now
            self.keepVersions = keepVersions
        }
    }

    /// What a commit did.
    public struct ReleaseOutcome: Sendable {
        /// The channel's release after the commit; `nil` only for a channel that has none and
        /// a commit that changed nothing.
        public let release: ReleaseSummary?
        /// False when the commit changed nothing, so no release was made.
        public let created: Bool
        /// The versions the commit made, in the order of ``ReleaseCommit/files``: O(change), so
        /// a commit that lists 100,000 files of which one changed answers with one.
        public let files: [FileVersion]
        /// How many files of ``ReleaseCommit/files`` the channel held already, with that content.
        public let unchanged: Int
        /// The paths taken out, as stored.
        public let removed: [String]
        /// The channel's serial after the commit.
        public let channelSerial: Int64
    }
}
