import DepotManifest
import DepotSigning
import Foundation

extension DepotClient {
    /// The newest root a sync verified, kept for the next one.
    var rootFile: URL { directory.appendingPathComponent(".depot/root.json") }

    /// What this sync trusts to sign channel documents: the newest of the root the app ships
    /// (``Configuration/trustedRoot``) and the one an earlier sync walked to; else the trusted
    /// keys; else nothing.
    func trust() throws -> ChannelCheck.Trust {
        let trust = try ChannelCheck.Trust(trustedKeys: configuration.trustedKeys, trustedRoot: configuration.trustedRoot)
        // Verified when it was saved; an app update may ship a newer one.
        if case .root(let root) = trust, let data = try? Data(contentsOf: rootFile),
            let saved = try? JSONDecoder().decode(RootDocument.self, from: data), saved.version > root.version
        {
            return .root(saved)
        }
        return trust
    }
}
