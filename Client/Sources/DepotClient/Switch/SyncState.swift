import DepotManifest
import Foundation

/// The release a sync folder holds.
public struct HeldRelease: Codable, Sendable, Equatable {
    /// The release id: the SHA-256 of its document.
    public var id: String
    public var number: Int64
    /// The channel it came from, and the serial of the channel document that named it.
    public var channel: String
    public var serial: Int64
    /// The version of the root that document was signed under, if any: serials compare only
    /// under one root.
    public var root: Int64?
    /// Without a root, the ids of the trusted keys whose signatures that document verified
    /// under: its serial is a floor only while one of them is still trusted (a new key starts
    /// the serials afresh, as a new root does). `nil` under a root, or unchecked.
    public var signers: [String]?
    /// How many files it has.
    public var files: Int64
    /// How the channel document that named it was judged.
    public var signature: ChannelCheck.SignatureStatus
}

/// What the client remembers between syncs, in one small file of the sync folder
/// (`.depot/state.json`), always replaced atomically. The files of the release it holds are in
/// the release's pages, kept in `.depot/pages/`, so this file stays small at any size.
struct SyncState: Codable, Equatable {
    /// The ETag of the channel document last followed, sent as `If-None-Match`.
    var channelETag: String?
    /// The channel document last followed: a 304 answers for it, so every sync checks it again
    /// (expiry, and signatures against the keys trusted now) before believing the 304.
    var channel: ChannelDocument?
    var release: HeldRelease?
    /// What the folder was last synced trusting (``FolderTrust``); `nil` in a folder synced
    /// before it was kept.
    var trust: FolderTrust?
    /// The release last held of each channel the folder has followed, by channel name: the
    /// serial floor of a channel outlives a switch to another (``floor(of:)``, ``hold(_:)``).
    /// `nil` in a folder synced before it was kept: ``release`` alone then.
    var accepted: [String: HeldRelease]?
    /// With release folders, the release held before ``release`` and its tree: what
    /// ``DepotClient/revert()`` goes back to, while the tree is kept
    /// (``DepotClient/Configuration/keepsPreviousRelease``). Recorded by every switch to a tree.
    var previous: PreviousRelease?
    /// The releases the app reverted (``DepotClient/revert()``), newest last: a sync does not
    /// take them again while the channel names them; a newer release is taken as usual.
    var refused: [String]?
    /// A release reverted whose `failed` report is not queued yet (a crash came between):
    /// queued by the next revert or sync (``DepotClient/finishRevert()``).
    var unreportedRevert: HeldRelease?

    /// The last document of `channel` the folder accepted, as a serial floor for the next one
    /// (``ChannelCheck/check(_:channel:trust:now:lastAccepted:)``): a client that followed
    /// stable, then beta, then stable again still refuses a replay of an older stable document.
    func floor(of channel: String) -> ChannelCheck.Accepted? {
        let last = accepted?[channel] ?? (release?.channel == channel ? release : nil)
        return last.map { .init(serial: $0.serial, release: $0.id, root: $0.root, signers: $0.signers.map(Set.init)) }
    }

    /// Holds `release`, and keeps it as its channel's floor (``floor(of:)``).
    mutating func hold(_ release: HeldRelease) {
        var accepted = self.accepted ?? [:]
        // A folder from before the floors were kept: the release it held is its channel's floor.
        if self.accepted == nil, let held = self.release { accepted[held.channel] = held }
        accepted[release.channel] = release
        self.accepted = accepted
        self.release = release
    }

    /// The state `folder` keeps; a fresh one when there is none, or it cannot be read.
    static func load(from folder: SyncFolder) -> SyncState {
        folder.decoded(.state, as: SyncState.self) ?? SyncState()
    }

    /// Whether the folder holds a state file that cannot be read (damaged, or edited by hand):
    /// what it remembered, the trust it was synced with among it, is then unknown.
    static func isUnreadable(in folder: SyncFolder) -> Bool {
        folder.read(.state).map { (try? JSONDecoder().decode(SyncState.self, from: Data($0))) == nil } ?? false
    }

    /// Replaces the state `folder` keeps, durably.
    func save(in folder: SyncFolder) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try folder.replace(.state, with: Array(try encoder.encode(self)))
    }
}
