import DepotManifest

extension TreeReader {
    /// A channel document that passed: signed as the trust says, after the roots it needs were
    /// walked (``trust(for:under:fromFirstRoot:held:verified:)``), unexpired, and no older than
    /// the one accepted before (``ChannelCheck``).
    public struct CheckedChannel: Sendable {
        public let document: ChannelDocument
        /// The document as the source sent it.
        public let bytes: [UInt8]
        public let entityTag: String?
        /// The trust it passed under: the newest root walked, or the trust given.
        public let trust: ChannelCheck.Trust
        public let signature: ChannelCheck.SignatureStatus
        /// The roots walked, oldest first, each checked against the one before it: to keep, now
        /// that the document that named them passed (a source's forged chain never gets here).
        public let roots: [(document: RootDocument, bytes: [UInt8])]
    }

    /// The channel document `channel`, checked: the one walk from a source to a channel
    /// document that `DepotClient` and `depot mirror` both follow. `nil` when the source
    /// answered 304 to `ifNoneMatch`. `fromFirstRoot`, `held`: as
    /// ``trust(for:under:fromFirstRoot:held:verified:)``; `now` (seconds since 1970) and
    /// `lastAccepted`: as ``ChannelCheck/check(_:channel:trust:now:lastAccepted:)``.
    public func checkedChannel(
        _ channel: String,
        ifNoneMatch: String? = nil,
        trust: ChannelCheck.Trust,
        fromFirstRoot: Bool,
        held: (TreeObject) throws -> [UInt8]? = { _ in nil },
        now: Int64,
        lastAccepted: ChannelCheck.Accepted?
    ) async throws -> CheckedChannel? {
        guard case .document(let document, let bytes, let entityTag) = try await poll(channel, ifNoneMatch: ifNoneMatch) else { return nil }
        var roots: [(document: RootDocument, bytes: [UInt8])] = []
        let trust = try await self.trust(for: document, under: trust, fromFirstRoot: fromFirstRoot, held: held) { roots.append(($0, $1)) }
        let signature = try ChannelCheck.check(document, channel: channel, trust: trust, now: now, lastAccepted: lastAccepted)
        return CheckedChannel(document: document, bytes: bytes, entityTag: entityTag, trust: trust, signature: signature, roots: roots)
    }
}
