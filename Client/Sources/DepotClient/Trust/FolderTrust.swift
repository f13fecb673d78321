import DepotManifest

/// What a sync folder was last synced trusting, kept in its state (``SyncState/trust``): a
/// folder synced with trusted keys or a root refuses a sync that trusts nothing, or other keys
/// only, unless told to replace its trust (``DepotClient/Configuration/replacesTrust``). An app
/// or a script that loses its `--trusted-key` then fails loudly instead of following unsigned
/// documents.
struct FolderTrust: Codable, Equatable, Sendable {
    /// The ids of the keys trusted (``ChannelCheck/keyID(of:)``), sorted; `nil` under a root.
    var keys: [String]?
    /// Whether a root of trust was trusted (``DepotClient/Configuration/trustedRoot``).
    var root: Bool

    /// Whether nothing was trusted.
    var isNone: Bool { !root && keys?.isEmpty != false }

    /// Why a sync trusting `new` may not go on in a folder last synced trusting `old`, or, when
    /// the folder has no record (synced before the record was kept), whose release was
    /// `verified`; `nil` when it may. Adding trust, or moving from keys to a root, is always
    /// allowed; dropping it, leaving a root for keys, or trusting only keys the folder never
    /// trusted, is not.
    static func refusal(old: FolderTrust?, verified: Bool, new: FolderTrust) -> String? {
        let before: String
        if let old {
            guard !old.isNone else { return nil }
            before = old.root ? "a root of trust" : "key\(old.keys?.count == 1 ? "" : "s") \(old.keys?.joined(separator: ", ") ?? "")"
        } else if verified {
            before = "a trusted key or root"
        } else {
            return nil
        }
        guard !new.isNone else { return "this folder was synced trusting \(before); this sync trusts nothing" }
        guard let old, !new.root else { return nil }
        if old.root { return "this folder was synced trusting \(before); this sync trusts keys only" }
        let (was, now) = (Set(old.keys ?? []), new.keys ?? [])
        guard was.isDisjoint(with: now) else { return nil }
        return "this folder was synced trusting \(before); this sync trusts \(now.count == 1 ? "key" : "keys") \(now.joined(separator: ", ")) only"
    }
}

extension FolderTrust {
    /// The trust `trust` records.
    init(_ trust: ChannelCheck.Trust) {
        switch trust {
        case .none: (keys, root) = ([], false)
        case .keys(let keys): (self.keys, root) = (keys.map(ChannelCheck.keyID(of:)).sorted(), false)
        case .root: (keys, root) = (nil, true)
        }
    }
}

extension SyncContext {
    /// Checks the trust of this sync against the one the folder remembers (``FolderTrust``), and
    /// records this sync's when it changed (not for a check, which changes nothing).
    ///
    /// - Throws: ``SyncError`` `.untrusted` when the folder's trust would be dropped or replaced
    ///   and ``Configuration/replacesTrust`` is off.
    func checkFolderTrust(recording: Bool) throws {
        // An unreadable state would be taken as a new folder's, trusting whatever this sync
        // trusts: refused like any other change of trust.
        if !configuration.replacesTrust, SyncState.isUnreadable(in: folder) {
            throw SyncError(
                .untrusted,
                "\(directoryPath)/.depot/state.json cannot be read, so the trust the folder was synced with is unknown: "
                    + "replace its trust (depot sync --replace-trust, Configuration.replacesTrust)"
            )
        }
        var state = SyncState.load(from: folder)
        let new = FolderTrust(try trust())
        if !configuration.replacesTrust,
            let refusal = FolderTrust.refusal(old: state.trust, verified: state.release?.signature == .verified, new: new)
        {
            throw SyncError(
                .untrusted,
                "\(refusal): give the trust it was synced with, or replace its trust (depot sync --replace-trust, Configuration.replacesTrust)"
            )
        }
        guard recording, state.trust != new else { return }
        state.trust = new
        try state.save(in: folder)
    }
}
