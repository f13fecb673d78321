import AsyncHTTPClient
import DepotClient
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

    /// The document at `path`, or `nil` when the source answers 404.
    func document(_ path: String) async throws -> [UInt8]? {
        let response = try await get(path)
        if response.status == .notFound { return nil }
        guard response.status == .ok else { throw MirrorError("\(base)/\(path) answered \(response.status.code)") }
        let body = try await response.body.collect(upTo: Self.maximumDocumentBytes)
        return Array(body.readableBytesView)
    }

    /// Downloads the file at `path`, which must have `sha256` and `size`; returns where it is,
    /// checked, or `nil` when the source answers 404. The caller removes it once placed.
    func file(_ path: String, sha256: String, size: Int64) async throws -> URL? {
        let partial = partialFolder.appendingPathComponent(sha256)
        let tagFile = partial.appendingPathExtension("etag")
        if !FileManager.default.fileExists(atPath: partial.path) { try Data().write(to: partial) }
        let held = (try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int64) ?? 0
        if held < size {
            var headers = HTTPHeaders()
            if held > 0, let tag = try? String(contentsOf: tagFile, encoding: .utf8) {
                headers.add(name: "Range", value: "bytes=\(held)-")
                headers.add(name: "If-Range", value: tag)
            }
            let response = try await get(path, headers: headers)
            if response.status == .notFound { return nil }
            let handle = try FileHandle(forWritingTo: partial)
            defer { try? handle.close() }
            switch response.status {
            case .partialContent where response.headers.first(name: "Content-Range")?.hasPrefix("bytes \(held)-") == true:
                try handle.seekToEnd()
            case .ok:
                try handle.truncate(atOffset: 0)
                if let tag = response.headers.first(name: "ETag"), tag.hasPrefix("\"") {
                    try Data(tag.utf8).write(to: tagFile)
                }
            default:
                throw MirrorError("\(base)/\(path) answered \(response.status.code)")
            }
            var written = try handle.offset()
            for try await chunk in response.body {
                written += UInt64(chunk.readableBytes)
                guard written <= size else { break }
                try handle.write(contentsOf: chunk.readableBytesView)
            }
        }
        guard let (held, heldSize) = try? StagedContent.digest(of: partial), held == sha256, heldSize == size else {
            try? FileManager.default.removeItem(at: partial)
            try? FileManager.default.removeItem(at: tagFile)
            throw MirrorError("\(base)/\(path) does not have the SHA-256 and size the release lists")
        }
        try? FileManager.default.removeItem(at: tagFile)
        return partial
    }

    private func get(_ path: String, headers: HTTPHeaders = [:]) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: "\(base)/\(path)")
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
