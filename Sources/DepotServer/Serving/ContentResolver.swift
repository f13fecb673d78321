import DepotManifest

/// Finds the ``Resource`` a ``ContentTarget`` names, for both paths: ``DirectResponder`` takes
/// only what is cached, Hummingbird's routes read the catalog for what is not (and cache it).
struct ContentResolver: Sendable {
    let content: PublishedContent
    let site: PublicSite

    /// The resource if it is at hand without reading the catalog.
    func cached(_ target: ContentTarget) -> Resource? {
        switch target {
        case .object(let object) where object.kind == .manifest: content.channel(named: ChannelName.default)
        case .object(let object): content.cached(.object(object))
        case .file(let path): content.cached(.file(path))
        case .publicFile(let path): site.resource(at: path)
        }
    }

    /// The resource, read from the catalog when it is not cached; `nil` when there is none.
    func load(_ target: ContentTarget) async throws -> Resource? {
        switch target {
        case .object(let object) where object.kind == .manifest: cached(target)
        case .object(let object): try await content.blobObject(object)
        case .file(let path): try await content.file(at: path)
        case .publicFile: cached(target)
        }
    }
}
