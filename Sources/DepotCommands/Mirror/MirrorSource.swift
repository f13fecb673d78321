import AsyncHTTPClient
import DepotClient
import DepotFiles
import DepotManifest
import Foundation
import NIOCore
import NIOHTTP1

/// What `depot mirror` reads from: a Depot origin, or a static mirror of one, over HTTP.
///
/// Documents come into memory, bounded, through ``DepotClient/TreeReader``. Files are
/// downloaded into `partialFolder` (kept between runs) by Depot's one resumable download
/// (``DepotClient/PartialFile``), then checked against the SHA-256 and size the release lists
/// before the caller places them. Every request, its wait for an answer included, must keep the
/// minimum rate of `limits` (``DepotClient/TransferLimits``, the rule `depot sync` follows).
struct MirrorSource: MirrorSourcing {
    /// The source's base URL, without a trailing slash.
    let base: String
    let client: any HTTPTransport
    /// Where downloads under way are kept: `.mirror/` in the destination folder.
    let partialFolder: ContainedFolder
    /// The rate every request must keep.
    let limits: TransferLimits
    /// The largest document accepted.
    static let maximumDocumentBytes = 64 << 20

    var name: String { base }

    func fetch(_ object: TreeObject, maximumBytes: Int, ifNoneMatch: String?) async throws -> TreeAnswer {
        let headers: HTTPHeaders = ifNoneMatch.map { ["If-None-Match": $0] } ?? [:]
        return try await bounded(object) { received in
            let response = try await get(object, headers: headers)
            switch response.status {
            case .ok:
                var body = ByteBuffer()
                do {
                    for try await chunk in response.body {
                        received.add(chunk.readableBytes)
                        guard body.readableBytes + chunk.readableBytes <= maximumBytes else {
                            throw SyncError(.corrupt, "\(base)\(object.url) is larger than the limit of \(maximumBytes) bytes")
                        }
                        body.writeImmutableBuffer(chunk)
                    }
                } catch let error as SyncError {
                    throw error
                } catch {
                    throw SyncError(.network, "\(base)\(object.url) broke off: \(error)")
                }
                return .found(Array(body.readableBytesView), entityTag: response.headers.first(name: "ETag"))
            case .notModified: return .notModified
            case .notFound: return .missing
            default: return .status(Int(response.status.code))
            }
        }
    }

    /// Runs `transfer` (one request and its body, counting the body's bytes into the counter it
    /// is given) under ``limits``: the first of its end and the watch's failure ends the other.
    private func bounded<T: Sendable>(_ object: TreeObject, _ transfer: @escaping @Sendable (ReceivedBytes) async throws -> T) async throws -> T {
        let received = ReceivedBytes()
        let limits = limits
        let what = base + object.url
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await transfer(received) }
            group.addTask {
                try await limits.watch({ received.total }, what: what)
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw CancellationError()
        }
    }

    /// Downloads the file `object`, which must have `sha256` and `size`; returns where it is,
    /// checked, or `nil` when the source answers 404. The caller removes it once placed.
    ///
    /// The download is Depot's one resumable download (``DepotClient/PartialFile``), with this
    /// source as its transport: resumed only under the strong `ETag` its start came with, and
    /// fetched again whole, once, when it resumed and then fails its check, so a source that
    /// sent wrong bytes under the right tag costs one download, not every later run.
    func file(_ object: TreeObject, sha256: String, size: Int64) async throws -> URL? {
        guard ContentAddress.isSHA256(sha256), size >= 0 else { throw MirrorError("\(object) is listed with an invalid SHA-256 or size") }
        let partial = URL(fileURLWithPath: partialFolder.root).appendingPathComponent(sha256)
        try Self.refuseLinks(partialFolder, sha256, sha256 + ".etag")
        do {
            _ = try await PartialFile.fetchChecked(
                partial,
                attempt: { try await download(object, to: partial, size: size) },
                resumed: { $0 },
                check: {
                    guard let (held, heldSize) = try? StagedContent.digest(of: partial), held == sha256, heldSize == size else {
                        throw SyncError(.corrupt, "\(base)\(object.url) does not have the SHA-256 and size the release lists")
                    }
                }
            )
        } catch is Missing {
            PartialFile.discard(partial)
            return nil
        }
        try? partialFolder.remove(sha256 + ".etag")
        return partial
    }

    /// The source answered 404 for a file.
    private struct Missing: Error {}

    /// Refuses to go on when one of the entries `names` of `folder` is not a file (a link), or
    /// `.mirror`'s path no longer names the folder opened (a link swapped in): whoever else can
    /// write the destination could otherwise make the mirror rewrite a file outside it.
    /// Checked before each download; an entry the mirror did not make is removed by hand.
    static func refuseLinks(_ folder: ContainedFolder, _ names: String...) throws {
        guard folder.isAtRoot else { throw MirrorError("\(folder.root) is not a folder the mirror made (a link?): remove it") }
        for name in names {
            do {
                _ = try folder.status(of: name)
            } catch {
                throw MirrorError("\(folder.root)/\(name) is not a file the mirror made (a link?): remove it")
            }
        }
    }

    /// One attempt at `object` into the partial file at `url`, over this source; returns
    /// whether it continued what the file held (a file complete already counts: its check may
    /// still fail).
    private func download(_ object: TreeObject, to url: URL, size: Int64) async throws -> Bool {
        try await bounded(object) { received in
            let partial = try PartialFile(at: url, source: base + object.url, expectedLength: size)
            if partial.isComplete { return true }
            var headers = HTTPHeaders()
            for (name, value) in partial.requestHeaders(assumedTag: nil) { headers.add(name: name, value: value) }
            let response = try await get(object, headers: headers)
            if response.status == .notFound { throw Missing() }
            try partial.begin(
                status: Int(response.status.code),
                contentRange: response.headers.first(name: "Content-Range"),
                entityTag: response.headers.first(name: "ETag")
            )
            do {
                for try await chunk in response.body {
                    received.add(chunk.readableBytes)
                    try partial.append(chunk.readableBytesView)
                }
            } catch let error as SyncError {
                throw error
            } catch {
                throw SyncError(.network, "\(base)\(object.url) broke off after \(partial.received) bytes: \(error)")
            }
            return partial.resumed
        }
    }

    private func get(_ object: TreeObject, headers: HTTPHeaders = [:]) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: base + object.url)
        request.headers = headers
        do {
            return try await client.execute(request, timeout: .seconds(600))
        } catch {
            throw SyncError(.network, describeConnectionError(error, server: base))
        }
    }
}

/// What `depot mirror` and `depot import` copy from: a tree's documents through
/// ``DepotClient/TreeReader``, and its files, each checked before it is handed over.
protocol MirrorSourcing: TreeSource {
    /// The file `object`, which must have `sha256` and `size`: where it is, checked, or `nil`
    /// when the source has none. The caller removes it once placed (``discard(_:)``).
    func file(_ object: TreeObject, sha256: String, size: Int64) async throws -> URL?
    /// `.mirror/` in the destination folder, where ``file(_:sha256:size:)`` puts its files.
    var partialFolder: ContainedFolder { get }
}

extension MirrorSourcing {
    /// Removes `file`, one ``file(_:sha256:size:)`` gave, through `.mirror/`'s descriptor.
    func discard(_ file: URL) throws {
        try partialFolder.remove(file.lastPathComponent)
    }
}

/// A failure of `depot mirror`, told in one line.
struct MirrorError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
