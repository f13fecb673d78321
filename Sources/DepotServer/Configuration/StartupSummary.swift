import Crypto
import DepotManifest
import Logging

/// What an operator must see once the server starts, as log metadata: whether channel documents
/// are signed and with which keys, under which root, whether the dashboard is on, which tokens
/// were loaded (by name, never the token), and whether publishing is possible at all. One line,
/// so that a start-up with no token, no key or no dashboard says so instead of leaving it to be
/// found by a refused publish.
public struct StartupSummary: Sendable, Equatable {
    public let metadata: Logger.Metadata

    public init(_ configuration: ServerConfiguration) {
        let keyIDs = configuration.channels.keys.map { ChannelSigner.keyID(of: $0.publicKey) }
        let names = configuration.accessTokens.map(\.name)
        var metadata: Logger.Metadata = [
            "public": "\(configuration.publicDirectory)",
            "data": "\(configuration.dataDirectory)",
            "signing": keyIDs.isEmpty ? "off: channel documents are unsigned" : "on, key \(keyIDs.joined(separator: ", "))",
            "dashboard": configuration.dashboard.enabled ? "on, at /dashboard" : "off",
            "tokens": names.isEmpty ? "none: the publishing API (/v1) answers 401 until access.tokens is set" : "\(names.joined(separator: ", "))",
        ]
        if let root = configuration.channels.root { metadata["root"] = "version \(root.version)" }
        if let export = configuration.exportDirectory { metadata["export"] = "\(export)" }
        self.metadata = metadata
    }

    /// Logs the summary at `info`, once.
    public func log(to logger: Logger) {
        logger.info("Depot starting", metadata: metadata)
    }
}
