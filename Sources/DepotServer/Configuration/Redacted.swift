/// Keeps secrets out of logs. Swift prints a value it knows nothing about field by field, so a
/// service or configuration logged with `String(describing:)` (swift-service-lifecycle does this
/// at `debug`) would print its tokens. These conformances replace every secret with `<redacted>`.
extension PublishConfiguration: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "tokens": "<redacted: \(tokens.count)>",
                "maxUploadBytes": maxUploadBytes,
                "keepVersions": keepVersions,
                "retiredGracePeriod": retiredGracePeriod,
                "collectionInterval": collectionInterval,
                "maxPathLength": maxPathLength,
            ]
        )
    }
}

extension ServerConfiguration: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "publicDirectory": publicDirectory, "dataDirectory": dataDirectory,
                "publish": publish, "metricsToken": metricsToken == nil ? "none" : "<redacted>",
            ]
        )
    }
}

extension BlobCollectionService: CustomStringConvertible {
    var description: String { "BlobCollectionService" }
}

extension PublicSiteRescanService: CustomStringConvertible {
    var description: String { "PublicSiteRescanService" }
}
