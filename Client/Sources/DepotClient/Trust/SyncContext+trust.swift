import DepotManifest
import DepotSigning
import Foundation

extension SyncContext {
    /// What this sync trusts to sign channel documents: the newest of the root the app ships
    /// (``Configuration/trustedRoot``) and the one an earlier sync walked to; else the trusted
    /// keys; else nothing.
    func trust() throws -> ChannelCheck.Trust {
        let trust = try ChannelCheck.Trust(trustedKeys: configuration.trustedKeys, trustedRoot: configuration.trustedRoot)
        // Verified when it was saved; an app update may ship a newer one.
        if case .root(let root) = trust, let bytes = folder.read(.root),
            let saved = try? JSONDecoder().decode(RootDocument.self, from: Data(bytes)), saved.version > root.version
        {
            return .root(saved)
        }
        return trust
    }
}
