import Foundation

/// A release ``DepotClient/download(progress:)`` staged and ``DepotClient/apply()`` has not
/// switched to yet, as the folder's record of it says (``DepotClient/stagedUpdate``): what an
/// app shows as "an update is ready" without asking the network.
public struct StagedUpdate: Sendable, Equatable {
    /// The release staged: the one ``DepotClient/apply()`` switches to.
    public var release: HeldRelease
    /// The id of the release it was downloaded over; `nil` over an empty folder.
    public var base: String?
    /// The size of the files it brings (new or changed), in bytes; `nil` when staged by a client
    /// from before this was kept.
    public var bytes: Int64?
    /// When it was staged; `nil` when staged by a client from before this was kept.
    public var stagedAt: Date?

    public init(release: HeldRelease, base: String?, bytes: Int64?, stagedAt: Date?) {
        self.release = release
        self.base = base
        self.bytes = bytes
        self.stagedAt = stagedAt
    }
}
