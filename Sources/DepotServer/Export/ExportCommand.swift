import DepotFiles
import DepotStore
import Foundation
import Logging
import _NIOFileSystem

/// `depot export --to DIR`: the published tree of the catalog under `configuration`'s data
/// folder, written once into `directory` (``StaticExport``), its channel documents signed with
/// `configuration`'s keys. Safe while a server runs on the same data folder: it only reads the
/// store. With `prunes`, it then removes from the folder what the catalog no longer stores
/// (``StaticExport/sweep()``), as the server's collection does for `export.directory`.
public func exportPublishedTree(
    configuration: ServerConfiguration,
    to directory: String,
    prunes: Bool = false,
    logger: Logger
) async throws -> StaticExport.Outcome {
    let data = FilePath(configuration.dataDirectory)
    let catalogPath = data.appending("catalog.sqlite").string
    // Looked at through the data folder's descriptor: a link at the catalog's name is no catalog.
    guard (try? ContainedFolder(root: data.string, creating: false).contains("catalog.sqlite")) == true else {
        throw StoreError(.invalidInput, "No catalog at \(catalogPath)")
    }
    let store = BlobStore.reading(dataDirectory: data)
    let catalog = try Catalog(path: catalogPath, logger: logger)
    let content = PublishedContent(catalog: catalog, store: store, cachePolicy: configuration.cachePolicy, signer: configuration.channels)
    try await content.documents.reload()
    let export = try StaticExport(directory: FilePath(directory), catalog: catalog, store: store, roots: configuration.channels.roots, logger: logger)
    let channels = content.documents.exported
    var outcome = try await export.export { channels }
    if prunes { outcome.removed = try await export.sweep() }
    return outcome
}
