import Foundation

/// When a ``DepotUpdater`` last checked with success, kept in the folder (`.depot/updater.json`)
/// so that the schedule survives the app: a relaunched updater checks one interval after the
/// last check, not one interval after its launch. Wall-clock seconds, since no monotonic clock
/// survives a restart; a time ahead of now (the clock set back) counts as unknown.
struct UpdateCheckStamp: Codable, Equatable {
    /// Seconds since 1970 of the check.
    var checkedAt: Int64

    /// The most bytes a stamp is read at: the updater writes about 30, so a larger file was
    /// not written by it, and is not read whole at each launch.
    static let maximumBytes = 4096

    /// The stamp `client`'s folder keeps; `nil` when none, or unreadable, or past
    /// ``maximumBytes``.
    static func load(from client: DepotClient) -> UpdateCheckStamp? {
        client.folder.decoded(.updater, as: UpdateCheckStamp.self, bound: maximumBytes)
    }

    /// Records a check at `now` in `client`'s folder; a folder that cannot take it (not made
    /// yet, read-only) keeps the old stamp, and the schedule counts from the launch.
    static func record(_ now: Date, in client: DepotClient) {
        guard let bytes = try? JSONEncoder().encode(UpdateCheckStamp(checkedAt: Int64(now.timeIntervalSince1970))) else { return }
        try? client.folder.replace(.updater, with: Array(bytes))
    }

    /// The time from the check to `now`; `nil` when the check is ahead of `now`, or so far
    /// behind that the difference overflows (a stamp edited to `Int64.min` must not trap).
    func elapsed(until now: Date) -> Duration? {
        let (seconds, overflow) = Int64(now.timeIntervalSince1970).subtractingReportingOverflow(checkedAt)
        return overflow || seconds < 0 ? nil : .seconds(seconds)
    }
}
