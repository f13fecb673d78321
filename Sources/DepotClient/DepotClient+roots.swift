import DepotManifest
import DepotSigning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

    /// Walks from `root` to the root `version` a channel document names: fetches
    /// `/roots/{n}.json` for each version after the one held, checks that each is signed by a
    /// threshold of the previous root's root keys and of its own, and keeps each in
    /// `.depot/root.json` once verified.
    func walk(from root: RootDocument, to version: Int64, session: TransferSession) async throws -> RootDocument {
        var root = root
        while root.version < version {
            let path = "roots/\(root.version + 1).json"
            var request = URLRequest(url: server.appendingPathComponent(path))
            request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
            let (http, data) = try await BoundedFetch.run(request, session: session, maximumBytes: 1 << 20, deadline: configuration.documentTimeout)
            guard http.statusCode == 200 else {
                throw SyncError(.untrusted, "the channel document names root \(version), but /\(path) answered \(http.statusCode)")
            }
            do {
                let next = try JSONDecoder().decode(RootDocument.self, from: data)
                try root.checkNext(next)
                root = next
            } catch let problem as RootDocument.Problem {
                throw SyncError(.untrusted, problem.message)
            } catch {
                throw SyncError(.corrupt, "/\(path) is not a root document")
            }
            try AtomicFile.write(data, to: rootFile)
        }
        return root
    }
}
