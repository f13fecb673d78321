import DepotManifest

/// Keeps secrets out of logs. Swift prints a value it knows nothing about field by field, so a
/// service or configuration logged with `String(describing:)` (swift-service-lifecycle does this
/// at `debug`) would print its tokens. These conformances replace every secret with `<redacted>`.
extension PublishConfiguration: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "tokens": "<redacted: \(tokens.count)>", "maxUploadBytes": maxUploadBytes, "keepVersions": keepVersions,
                "keepReleases": keepReleases, "retiredGracePeriod": retiredGracePeriod, "collectionInterval": collectionInterval,
                "uploadLifetime": uploadLifetime, "maxCommitBytes": maxCommitBytes, "maxPathLength": maxPathLength,
                "maxMissingHashes": maxMissingHashes, "maxBatchBlobBytes": maxBatchBlobBytes, "maxBatchBlobs": maxBatchBlobs,
                "maxBatchBytes": maxBatchBytes, "deltas": deltas,
            ]
        )
    }
}

/// Every setting but the test hook (`connectionClock`), so that a configuration printed at
/// `debug` says all it holds, and `ConfigurationReferenceTests` sees every key's value in it.
extension ServerConfiguration: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "serverName": serverName as Any, "headerLimits": headerLimits,
                "connectionLimits": connectionLimits, "trustedProxies": trustedProxies.sorted(),
                "metricsAllowedAddresses": metricsAllowedAddresses.sorted(), "metricsToken": metricsToken == nil ? "none" : "<redacted>",
                "dashboard": dashboard, "logsRequests": logsRequests, "accessLog": accessLog, "directResponses": directResponses,
                "memoryCacheBytes": memoryCacheBytes, "resourceCacheEntries": resourceCacheEntries, "mallocArenas": mallocArenas,
                "openFilesPerEventLoop": openFilesPerEventLoop, "openFileIdleTime": openFileIdleTime,
                "shutdownGracePeriod": shutdownGracePeriod, "accessTokens": accessTokens.map { "\($0.name): <redacted>" },
                "publicDirectory": publicDirectory, "dataDirectory": dataDirectory, "publicRescanInterval": publicRescanInterval as Any,
                "exportDirectory": exportDirectory as Any, "publicCacheControl": publicCacheControl, "rangeLimits": rangeLimits,
                "store": store, "variants": variants, "publish": publish, "cachePolicy": cachePolicy, "channels": channels,
                "rollouts": rollouts, "reports": reports, "packs": packs,
            ]
        )
    }
}

extension DashboardConfiguration: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["enabled": enabled, "readTokens": "<redacted: \(readTokens.count)>", "allowedAddresses": allowedAddresses.sorted()]
        )
    }
}

extension ChannelSigner: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(self, children: ["keys": "<redacted: \(keys.count)>", "roots": roots.map(\.document.version), "validity": validity])
    }
}

extension BlobCollectionService: CustomStringConvertible {
    var description: String { "BlobCollectionService" }
}

extension PublicSiteRescanService: CustomStringConvertible {
    var description: String { "PublicSiteRescanService" }
}
