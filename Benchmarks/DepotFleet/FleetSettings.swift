import DepotManifest

/// What a run of the fleet is: its installs, their poll interval, the scale of its time, where
/// they poll, the apps they run and the release that fails on one of them. Read once from the
/// command line (``FleetCommand``).
struct FleetSettings: Sendable {
    /// The servers each install tries in order (`DepotClient.servers`): the origin's edge,
    /// then the bucket's.
    var servers: [ServerAddress]
    /// Where reports are posted: `POST {reportServer}/v1/reports`.
    var reportServer: ServerAddress
    var channel: String
    /// The channel signing key's public half, base64.
    var trustedKey: String
    var installs: Int
    /// An install's poll interval, in simulated seconds.
    var interval: Double
    /// Simulated seconds per real second.
    var scale: Double
    /// The fleet's app versions and their shares (summing to 1).
    var clientVersions: [(version: ClientVersion, share: Double)]
    /// A release that fails on one app version: its installs report `failed`.
    var bad: (number: Int64, version: ClientVersion)?
    /// Keep-alive connections per server.
    var connections: Int
    var seed: UInt64
}
