import GRDB

/// Where a catalog rebuilt by `depot restore` or `depot import` stands once done: what its
/// channels point to, the newest release it holds, and the number the next release takes. The
/// commands tell the operator from it which clients go back (those holding a release the copy
/// missed) and that no lost release's number is given again.
public struct RebuildSummary: Sendable, Equatable {
    /// A channel of the rebuilt catalog: the release it points to and its serial.
    public struct Channel: Sendable, Equatable {
        public var name: String
        public var release: Int64
        public var serial: Int64

        public init(name: String, release: Int64, serial: Int64) {
            self.name = name
            self.release = release
            self.serial = serial
        }
    }

    public var channels: [Channel]
    /// The newest release the copy held, and when it was made (seconds since 1970).
    public var newestRelease: Int64
    public var newestReleaseCreatedAt: Int64?
    /// The lowest number the next release takes (``ReleaseStore/raiseReleaseFloor(by:)``).
    public var nextRelease: Int64
}

extension Maintenance {
    /// The last step of a restore or an import: raises the release floor by `releaseMargin`,
    /// records `action` (`restore` or `import`) in the audit trail as the server's, and says where
    /// the catalog stands.
    public func finishRebuild(_ action: String, releaseMargin: Int64, serialMargin: Int64, now: Int64) async throws -> RebuildSummary {
        let releases = ReleaseStore(catalog)
        let newest = try await database.read(ReleaseTables.newestRelease(in:))
        let next = try await releases.raiseReleaseFloor(by: releaseMargin)
        let channels = try await releases.channels().map { RebuildSummary.Channel(name: $0.name, release: $0.release.number, serial: $0.serial) }
        let summary = RebuildSummary(
            channels: channels,
            newestRelease: newest?.number ?? 0,
            newestReleaseCreatedAt: newest?.createdAt,
            nextRelease: next
        )
        let pointing = channels.map { "\($0.name) at release \($0.release)" }.joined(separator: ", ")
        try await AuditLog(catalog).appendAudit(
            AuditRecord(
                at: now,
                token: "server",
                client: nil,
                action: action,
                detail: "\(pointing.isEmpty ? "no channel" : pointing); serials raised by \(serialMargin); next release \(next)"
            )
        )
        return summary
    }
}
