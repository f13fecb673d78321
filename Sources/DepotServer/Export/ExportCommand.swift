import DepotStore
import Logging
import _NIOFileSystem

/// `depot export --to DIR`: the published tree of the catalog under `configuration`'s data
/// folder, written once into `directory` (``StaticExport``), its channel documents signed with
/// `configuration`'s keys. Safe while a server runs on the same data folder.
public func exportPublishedTree(configuration: ServerConfiguration, to directory: String, logger: Logger) async throws -> StaticExport.Outcome {
    let store = try await BlobStore.open(dataDirectory: FilePath(configuration.dataDirectory), configuration: configuration.store, logger: logger)
    let catalog = try Catalog(path: FilePath(configuration.dataDirectory).appending("catalog.sqlite").string, logger: logger)
    let content = PublishedContent(catalog: catalog, store: store, cachePolicy: configuration.cachePolicy, signer: configuration.channels)
    try await content.reloadChannels()
    let export = try StaticExport(directory: FilePath(directory), catalog: catalog, store: store, roots: configuration.channels.roots, logger: logger)
    return try await export.export(content.exportedChannels)
}
