/// Finds the ``Resource`` a ``ContentTarget`` names, for both paths: ``DirectResponder`` takes
/// only what is cached, Hummingbird's routes read the catalog for what is not (and cache it).
struct ContentResolver: Sendable {
    let content: PublishedContent
    let site: PublicSite

    /// The resource if it is at hand without reading the catalog.
    func cached(_ target: ContentTarget) -> Resource? {
        switch target {
        case .channel(let name): content.channel(named: name)
        case .file(let path): content.cached(.file(path))
        case .blob(let sha256): content.cached(.blob(sha256))
        case .gzipBlob(let sha256): content.cached(.gzipBlob(sha256))
        case .variantBlob(let sha256, let coding): content.cached(.variantBlob(sha256, coding))
        case .blockIndex(let sha256): content.cached(.blockIndex(sha256))
        case .packedBlocks(let sha256): content.cached(.packedBlocks(sha256))
        case .publicFile(let path): site.resource(at: path)
        }
    }

    /// The resource, read from the catalog when it is not cached; `nil` when there is none.
    func load(_ target: ContentTarget) async throws -> Resource? {
        switch target {
        case .file(let path): try await content.file(at: path)
        case .blob(let sha256): try await content.blob(sha256: sha256)
        case .gzipBlob(let sha256): try await content.gzipBlob(sha256: sha256)
        case .variantBlob(let sha256, let coding): try await content.variantBlob(sha256: sha256, coding: coding)
        case .blockIndex(let sha256): try await content.blockIndex(of: sha256, packed: false)
        case .packedBlocks(let sha256): try await content.blockIndex(of: sha256, packed: true)
        case .channel, .publicFile: cached(target)
        }
    }
}
