import AsyncHTTPClient
import DepotClient
import DepotManifest
import Foundation
import NIOCore
import NIOHTTP1

/// What `depot mirror` reads from: a Depot origin, or a static mirror of one, over HTTP.
///
/// Documents come into memory, bounded. Files are downloaded into `partialFolder` (kept between
/// runs) and resumed with `Range` and `If-Range` (the ETag the source sent), then checked
/// against the SHA-256 and size the release lists before the caller places them.
struct MirrorSource {
    /// The source's base URL, without a trailing slash.
    let base: String
    let client: HTTPClient
    /// Where downloads under way are kept: `.mirror/` in the destination folder.
    let partialFolder: URL
    /// The largest document accepted.
    static let maximumDocumentBytes = 64 << 20

    /// The document `object`, or `nil` when the source answers 404; one larger than
    /// `maximumBytes` is refused.
    func document(_ object: TreeObject, maximumBytes: Int = Self.maximumDocumentBytes) async throws -> [UInt8]? {
        let response = try await get(object)
        if response.status == .notFound { return nil }
        guard response.status == .ok else { throw MirrorError("\(base)\(object.url) answered \(response.status.code)") }
        do {
            return Array(try await response.body.collect(upTo: maximumBytes).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw MirrorError("\(base)\(object.url) is larger than the \(maximumBytes) bytes a document may have")
        }
    }

    /// Downloads the file `object`, which must have `sha256` and `size`; returns where it is,
    /// checked, or `nil` when the source answers 404. The caller removes it once placed.
    ///
    /// A download is resumed only from the source and `ETag` it began with; one that resumed
    /// and then fails its check is fetched again whole, once, before it is refused: a source
    /// that sent wrong bytes under the right tag costs one download, not every later run.
    func file(_ object: TreeObject, sha256: String, size: Int64) async throws -> URL? {
        guard ContentAddress.isSHA256(sha256), size >= 0 else { throw MirrorError("\(object) is listed with an invalid SHA-256 or size") }
        let partial = partialFolder.appendingPathComponent(sha256)
        let tagFile = partial.appendingPathExtension("etag")
        try Self.refuseLinks(partialFolder, partial, tagFile)
        let resumed = try await download(object, to: partial, tagFile: tagFile, size: size)
        guard let resumed else { return nil }
        if try check(partial, sha256: sha256, size: size) { return partial }
        try? FileManager.default.removeItem(at: partial)
        try? FileManager.default.removeItem(at: tagFile)
        if resumed, try await download(object, to: partial, tagFile: tagFile, size: size) != nil, try check(partial, sha256: sha256, size: size) {
            return partial
        }
        try? FileManager.default.removeItem(at: partial)
        try? FileManager.default.removeItem(at: tagFile)
        throw MirrorError("\(base)\(object.url) does not have the SHA-256 and size the release lists")
    }

    /// Refuses to go on when one of `entries` is a link (or `.mirror` no folder): whoever else
    /// can write the destination could otherwise make the mirror rewrite a file outside it.
    /// Checked before each download; an entry the mirror did not make is removed by hand.
    static func refuseLinks(_ folder: URL, _ entries: URL...) throws {
        var status = stat()
        guard lstat(folder.path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw MirrorError("\(folder.path) is not a folder the mirror made (a link?): remove it")
        }
        for entry in entries where lstat(entry.path, &status) == 0 && status.st_mode & S_IFMT != S_IFREG {
            throw MirrorError("\(entry.path) is not a file the mirror made (a link?): remove it")
        }
    }

    /// Whether the file at `partial` has `sha256` and `size`; the tag kept for resuming goes
    /// once it has.
    private func check(_ partial: URL, sha256: String, size: Int64) throws -> Bool {
        guard let (held, heldSize) = try? StagedContent.digest(of: partial), held == sha256, heldSize == size else { return false }
        try? FileManager.default.removeItem(at: partial.appendingPathExtension("etag"))
        return true
    }

    /// Downloads `object` into `partial`, resuming what is there when `tagFile` holds the tag
    /// it began under; `nil` when the source answers 404, else whether it resumed.
    private func download(_ object: TreeObject, to partial: URL, tagFile: URL, size: Int64) async throws -> Bool? {
        if !FileManager.default.fileExists(atPath: partial.path) { try Data().write(to: partial) }
        let held = (try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int64) ?? 0
        var resumed = false
        if held < size {
            var headers = HTTPHeaders()
            if held > 0, let tag = try? String(contentsOf: tagFile, encoding: .utf8) {
                headers.add(name: "Range", value: "bytes=\(held)-")
                headers.add(name: "If-Range", value: tag)
            }
            let response = try await get(object, headers: headers)
            if response.status == .notFound { return nil }
            let handle = try FileHandle(forWritingTo: partial)
            defer { try? handle.close() }
            switch response.status {
            case .partialContent where response.headers.first(name: "Content-Range")?.hasPrefix("bytes \(held)-") == true:
                try handle.seekToEnd()
                resumed = true
            case .ok:
                try handle.truncate(atOffset: 0)
                // Resumable later only under a strong tag of this answer's.
                if let tag = response.headers.first(name: "ETag"), tag.hasPrefix("\"") {
                    try Data(tag.utf8).write(to: tagFile)
                } else {
                    try? FileManager.default.removeItem(at: tagFile)
                }
            default:
                throw MirrorError("\(base)\(object.url) answered \(response.status.code)")
            }
            var written = try handle.offset()
            for try await chunk in response.body {
                written += UInt64(chunk.readableBytes)
                guard written <= size else { break }
                try handle.write(contentsOf: chunk.readableBytesView)
            }
        }
        return resumed
    }

    private func get(_ object: TreeObject, headers: HTTPHeaders = [:]) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: base + object.url)
        request.headers = headers
        do {
            return try await client.execute(request, timeout: .seconds(600))
        } catch {
            throw MirrorError(describeConnectionError(error, server: base))
        }
    }
}

/// A failure of `depot mirror`, told in one line.
struct MirrorError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
