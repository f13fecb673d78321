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

    /// Walks from `root` to the root `version` a channel document names (``RootWalk``),
    /// keeping each root in `.depot/root.json` once verified.
    func walk(from root: RootDocument, to version: Int64, session: TransferSession) async throws -> RootDocument {
        do {
            return try await RootWalk.walk(from: root, to: version) { object in
                var request = URLRequest(url: server.appendingPathComponent(object.path))
                request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
                let (http, data) = try await BoundedFetch.run(
                    request,
                    session: session,
                    maximumBytes: RootWalk.maximumRootBytes,
                    deadline: configuration.documentTimeout
                )
                if http.statusCode == 404 { return nil }
                guard http.statusCode == 200 else {
                    throw SyncError(.untrusted, "the channel document names root \(version), but \(object.url) answered \(http.statusCode)")
                }
                return Array(data)
            } verified: { _, bytes in
                try AtomicFile.write(Data(bytes), to: rootFile)
            }
        } catch let failure as RootWalk.Failure {
            throw SyncError(failure.kind == .corrupt ? .corrupt : .untrusted, failure.message)
        }
    }
}
