/// `GET /v1/audit`'s reply: records of the audit trail, newest first.
public struct AuditList: Codable, Sendable, Equatable {
    /// One change, or one refusal, as the trail holds it.
    public struct Record: Codable, Sendable, Equatable {
        /// Its place in the trail: later records have higher ones (`?before=` pages back).
        public var id: Int64
        /// When, as an HTTP date.
        public var at: String
        /// The token's name (never the token), `rollout-gate` or `server`.
        public var token: String
        /// The client's address.
        public var client: String?
        /// `publish`, `delete`, `promote`, `rollback`, `rollout-start`, `rollout-pause`,
        /// `rollout-resume`, `rollout-halt`, `rollout-rollback`, `gate-advance`, `gate-complete`,
        /// `gate-halt`, `gate-rollback`, `root-served` or `refused`.
        public var action: String
        public var channel: String?
        /// The release's number.
        public var release: Int64?
        /// The channel's document serial after the change.
        public var serial: Int64?
        public var detail: String?

        public init(
            id: Int64,
            at: String,
            token: String,
            client: String?,
            action: String,
            channel: String?,
            release: Int64?,
            serial: Int64?,
            detail: String?
        ) {
            self.id = id
            self.at = at
            self.token = token
            self.client = client
            self.action = action
            self.channel = channel
            self.release = release
            self.serial = serial
            self.detail = detail
        }
    }

    public var records: [Record]

    public init(records: [Record]) {
        self.records = records
    }
}
