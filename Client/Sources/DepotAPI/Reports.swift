/// The body of `POST /v1/reports`: what installs say about the releases they hold.
public struct ReportBatch: Codable, Sendable, Equatable {
    public var reports: [Report]

    public init(reports: [Report]) {
        self.reports = reports
    }

    /// One install's report about one release.
    public struct Report: Codable, Sendable, Equatable {
        /// The release id.
        public var release: String
        /// Lower-case hex SHA-256 of the install's id, a line feed and the release id: the same
        /// install gives the same value for a release (so it counts once) and unrelated values
        /// for two releases; the id itself never leaves the device.
        public var install: String
        /// `applied`, `failed` or `healthy` (``Kind``).
        public var kind: String
        /// Why, for `failed`: a short text, at most ``maximumReasonBytes`` (logged, not stored).
        public var reason: String?
        /// The channel the install follows: its report counts toward that channel's rollout
        /// only. Clients that do not say count only where one live rollout has the release.
        public var channel: String?

        /// What a report can say.
        public enum Kind: String, Sendable, CaseIterable {
            case applied, failed, healthy
        }

        /// The longest reason the server takes, in UTF-8 bytes; clients cut theirs to it
        /// (``reason(cutting:)``).
        public static let maximumReasonBytes = 200

        /// `text` cut to at most ``maximumReasonBytes`` of UTF-8 between two characters, never
        /// inside one: a cut inside a multi-byte character would decode to a replacement
        /// character, longer than the limit, and the server would refuse every later batch.
        public static func reason(cutting text: String) -> String {
            var length = 0
            var end = text.startIndex
            for index in text.indices {
                let next = text.index(after: index)
                length += text.utf8.distance(from: index, to: next)
                guard length <= maximumReasonBytes else { break }
                end = next
            }
            return String(text[..<end])
        }

        public init(release: String, install: String, kind: String, reason: String? = nil, channel: String? = nil) {
            self.release = release
            self.install = install
            self.kind = kind
            self.reason = reason
            self.channel = channel
        }
    }
}

/// The reply to `POST /v1/reports` (202): how many reports were taken. They are counted within
/// a second; repeats and reports about unknown releases count nothing.
public struct ReportsReply: Codable, Sendable, Equatable {
    public var accepted: Int

    public init(accepted: Int) {
        self.accepted = accepted
    }
}
