import Crypto
import DepotAPI
import DepotConnection
import DepotDelta
import DepotHTTP
import DepotManifest
import DepotStore
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import _NIOFileSystem

/// Documents served from memory: the channel documents, and the release documents and pages.
extension PublishedContent {
    /// A JSON document served from memory, with a gzip variant when compressing saves a tenth.
    static func jsonResource(_ document: [UInt8], lastModified: HTTPDate, lastModifiedIsStrong: Bool, cacheControl: String?) throws -> Resource {
        let compressed = ByteBuffer(bytes: try document.withUnsafeBytes { try Gzip.compress($0) })
        let gzip =
            compressed.readableBytes * 10 <= document.count * 9
            ? Resource.Variant(
                storage: .bytes(compressed),
                length: Int64(compressed.readableBytes),
                sha256: Hex.string(SHA256.hash(data: Data(compressed.readableBytesView)))
            ) : nil
        return Resource(
            identity: .init(
                storage: .bytes(ByteBuffer(bytes: document)),
                length: Int64(document.count),
                sha256: Hex.string(SHA256.hash(data: document))
            ),
            encoded: gzip.map { [.gzip: $0] } ?? [:],
            contentType: "application/json",
            lastModified: lastModified,
            lastModifiedIsStrong: lastModifiedIsStrong,
            cacheControl: cacheControl
        )
    }

    static func inMemory(_ bytes: [UInt8], contentType: String, lastModified: HTTPDate, lastModifiedIsStrong: Bool, cacheControl: String?) -> Resource
    {
        Resource(
            identity: .init(storage: .bytes(ByteBuffer(bytes: bytes)), length: Int64(bytes.count), sha256: Hex.string(SHA256.hash(data: bytes))),
            contentType: contentType,
            lastModified: lastModified,
            lastModifiedIsStrong: lastModifiedIsStrong,
            cacheControl: cacheControl
        )
    }
}
