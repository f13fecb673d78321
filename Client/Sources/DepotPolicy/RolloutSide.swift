import DepotManifest

/// Which release of a channel document an install follows, and why: the channel's release, or,
/// during a rollout (``ChannelDocument/Rollout``), the release rolled out when the install's
/// bucket is below the rollout's percentage. The rule is pure, so it is tested as a table and a
/// simulated fleet runs the very code a device runs.
public struct RolloutSide: Sendable, Codable, Equatable {
    public enum Side: String, Sendable, Codable {
        /// The document names no rollout: the channel's release.
        case noRollout
        /// In the rollout: the release rolled out.
        case rolledOut
        /// Outside the rollout: the release it replaces.
        case outside
        /// The release the install would take needs a newer app (``ClientVersion``): an earlier
        /// release, the newest this app can use.
        case fallback
    }

    public var side: Side
    /// The id and number of the release this install follows.
    public var release: String
    public var number: Int64
    /// Whether that release is critical: the app should apply it at once.
    public var critical: Bool
    /// The install's bucket for the rollout's salt, 0 to 99; `nil` without a rollout.
    public var bucket: Int?
    /// Why, in words.
    public var reason: String

    /// The side of an install whose bucket for a salt is `bucket(salt)`, which holds the
    /// release `holding` (if any), and whose app is `clientVersion` (`nil`: any release will do).
    ///
    /// An install that holds the release rolled out keeps it whatever its bucket (a new install
    /// id or salt must not move it back); only a rollback, a document with no rollout naming
    /// the older release, does. Then, when the app is older than the chosen release needs, the
    /// install takes the release the rollout replaces, or the first fallback it can use.
    ///
    /// - Throws: ``PolicyError`` `.incompatible` when the document offers no release this app
    ///   can use.
    public static func decide(
        _ document: ChannelDocument,
        bucket: (String) -> Int,
        holding: String?,
        clientVersion: ClientVersion? = nil
    ) throws(PolicyError) -> RolloutSide {
        let base = (release: document.release, number: document.number, minimum: document.minimumClientVersion)
        let (side, minimum) = chosen(document, bucket: bucket, holding: holding)
        guard let clientVersion, let needed = minimum.flatMap(ClientVersion.init), clientVersion < needed else { return side }
        // Too new for this app: the release the rollout replaces, then the fallbacks.
        let earlier =
            (side.release == base.release ? [] : [base])
            + (document.fallbacks ?? []).map { (release: $0.release, number: $0.number, minimum: $0.minimumClientVersion) }
        guard let usable = earlier.first(where: { ($0.minimum.flatMap(ClientVersion.init) ?? clientVersion) <= clientVersion }) else {
            throw PolicyError(
                .incompatible,
                "no release of \(document.channel) can be used by app version \(clientVersion): release \(side.number) needs \(needed) or later"
            )
        }
        return RolloutSide(
            side: .fallback,
            release: usable.release,
            number: usable.number,
            critical: usable.release == base.release && (document.critical ?? false),
            bucket: side.bucket,
            reason:
                "release \(side.number) needs app version \(needed) or later, this is \(clientVersion): release \(usable.number), the newest it can use"
        )
    }

    /// The side `document` gives an install whose bucket for a rollout's salt is `bucket` and
    /// that holds `holding`, whatever its app version; and the app version that side needs.
    private static func chosen(_ document: ChannelDocument, bucket: (String) -> Int, holding: String?) -> (RolloutSide, String?) {
        guard let rollout = document.rollout else {
            let side = RolloutSide(
                side: .noRollout,
                release: document.release,
                number: document.number,
                critical: document.critical ?? false,
                bucket: nil,
                reason: "no rollout"
            )
            return (side, document.minimumClientVersion)
        }
        let bucket = bucket(rollout.salt)
        let taken = holding == rollout.release || bucket < rollout.percent
        let reason =
            holding == rollout.release
            ? "holds release \(rollout.number) already: a rollout never moves an install back"
            : "bucket \(bucket) is \(taken ? "below" : "not below") \(rollout.percent)%"
        guard taken else {
            let side = RolloutSide(
                side: .outside,
                release: document.release,
                number: document.number,
                critical: document.critical ?? false,
                bucket: bucket,
                reason: reason
            )
            return (side, document.minimumClientVersion)
        }
        let side = RolloutSide(
            side: .rolledOut,
            release: rollout.release,
            number: rollout.number,
            critical: rollout.critical ?? false,
            bucket: bucket,
            reason: reason
        )
        return (side, rollout.minimumClientVersion)
    }
}
