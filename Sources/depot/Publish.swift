import ArgumentParser
import AsyncHTTPClient
import Crypto
import DepotAPI
import DepotClient
import DepotHTTP
import DepotServer
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import _NIOFileSystem

extension Depot {
    /// `depot publish FILE|DIR... --server URL`: uploads files to a running server as one release.
    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish files to a Depot server, as one release.",
            discussion: """
                Each FILE is published under its name, or under --as PATH. A DIR publishes every file below it \
                (hidden ones excepted) under its path relative to DIR, prefixed with --as when given. \
                Every file is uploaded by its content first, and content the server holds already is not sent \
                again; then one request commits the release: the channel's files plus these (--replace: exactly \
                these), minus --delete. Clients see the release whole or not at all. \
                The token comes from --token-file or DEPOT_TOKEN. Every upload carries its SHA-256 \
                (Repr-Digest), which the server checks.
                """
        )

        @Argument(help: "Files or folders to publish.")
        var items: [String] = []

        @Option(name: .customLong("as"), help: "The logical path of a single FILE, or the prefix for a DIR.")
        var logicalPath: String?

        @Option(help: "The channel to publish to.")
        var channel = "stable"

        @Option(name: .customLong("delete"), help: "A path to take out of the release (repeatable).")
        var deletions: [String] = []

        @Flag(help: "Make the release exactly the files named: every other path of the channel is taken out.")
        var replace = false

        @OptionGroup var server: ServerOptions

        @Option(help: "A file holding the publish token (or set DEPOT_TOKEN).")
        var tokenFile: String?

        @Flag(help: "Print the server's JSON reply instead of a line per file.")
        var json = false

        func validate() throws {
            guard !items.isEmpty || !deletions.isEmpty else { throw ValidationError("Name at least one file or folder to publish, or a --delete") }
            if logicalPath != nil, items.count > 1 {
                throw ValidationError("--as takes a single FILE or DIR")
            }
        }

        func run() async throws {
            try await reportingFailures {
                let api = PublisherAPI(baseURL: try server.baseURL(), token: try PublisherAPI.readToken(file: tokenFile))
                let uploads = try plan()
                try await withHTTPClient { client in
                    var digests: [(upload: Upload, sha256: String, size: Int64)] = []
                    for upload in uploads {
                        let (sha256, size) = try await Self.digest(of: upload.file)
                        digests.append((upload, sha256, size))
                    }
                    let missing = try await Self.missing(Set(digests.map(\.sha256)), api: api, client: client)
                    var toSend: [(upload: Upload, sha256: String, size: Int64)] = []
                    var queued = Set<String>()
                    for digest in digests where missing.contains(digest.sha256) && queued.insert(digest.sha256).inserted {
                        toSend.append(digest)
                    }
                    // Large files one at a time, each with its progress bar; small ones a few at
                    // a time, so that round trips and the server's syncs overlap.
                    for file in toSend where file.size >= Self.smallFileBytes {
                        try await send(file.upload, sha256: file.sha256, size: file.size, showsProgress: true, api: api, client: client)
                    }
                    let small = toSend.filter { $0.size < Self.smallFileBytes }
                    _ = try await mapConcurrently(small, width: Self.parallelUploads) { file in
                        try await send(file.upload, sha256: file.sha256, size: file.size, showsProgress: false, api: api, client: client)
                    }
                    let sent = toSend.reduce(0) { $0 + $1.size }
                    let commit = CommitRequest(
                        channel: channel,
                        files: digests.map { .init(path: $0.upload.logicalPath, sha256: $0.sha256) },
                        delete: deletions,
                        replace: replace
                    )
                    let reply = try await api.send(.POST, "/v1/releases", json: commit, client: client)
                    if json {
                        print(reply.text)
                    } else {
                        report(try reply.decoded(CommitReply.self), sent: sent)
                    }
                }
            }
        }

        /// Prints a line per file published or removed, and one for the release.
        func report(_ reply: CommitReply, sent: Int64) {
            for file in reply.files {
                let gzip = file.gzipSize.map { ", gzip \(ByteCountText($0))" } ?? ""
                print("published \(file.path) v\(file.version) (\(ByteCountText(file.size))\(gzip)) sha256 \(file.sha256.prefix(12))…")
            }
            for path in reply.removed { print("removed \(path)") }
            let number = reply.release?.number ?? 0
            if reply.created {
                let counts = reply.unchanged > 0 ? " (\(reply.files.count) published, \(reply.unchanged) unchanged)" : ""
                print("release \(number) on \(reply.channel): \(reply.release?.files ?? 0) files\(counts), \(ByteCountText(sent)) uploaded")
            } else {
                print("nothing changed: \(reply.channel) stays on release \(number)")
            }
        }

        /// One file to send and the path it gets.
        struct Upload {
            let file: String
            let logicalPath: String
        }

        /// Expands folders and checks that every file exists before anything is sent.
        func plan() throws -> [Upload] {
            var uploads: [Upload] = []
            for item in items {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: item, isDirectory: &isDirectory) else {
                    throw CommandFailure("no such file: \(item)")
                }
                if isDirectory.boolValue {
                    let prefix = logicalPath.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? ""
                    let enumerator = FileManager.default.enumerator(atPath: item)
                    var found: [String] = []
                    while let relative = enumerator?.nextObject() as? String {
                        let full = (item as NSString).appendingPathComponent(relative)
                        var childIsDirectory: ObjCBool = false
                        guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }),
                            FileManager.default.fileExists(atPath: full, isDirectory: &childIsDirectory), !childIsDirectory.boolValue
                        else { continue }
                        found.append(relative)
                    }
                    uploads += found.sorted().map { Upload(file: (item as NSString).appendingPathComponent($0), logicalPath: prefix + $0) }
                } else {
                    uploads.append(Upload(file: item, logicalPath: logicalPath ?? (item as NSString).lastPathComponent))
                }
            }
            return uploads
        }

        /// Files smaller than this are uploaded ``parallelUploads`` at a time, without a progress bar.
        static let smallFileBytes: Int64 = 1 << 20
        static let parallelUploads = 4

        /// Which of `hashes` the server lacks: `POST /v1/blobs/missing`, a few thousand hashes a
        /// request.
        static func missing(_ hashes: Set<String>, api: PublisherAPI, client: HTTPClient) async throws -> Set<String> {
            let hashes = Array(hashes)
            var missing = Set<String>()
            for start in stride(from: 0, to: hashes.count, by: 5000) {
                let chunk = Array(hashes[start..<min(start + 5000, hashes.count)])
                let reply = try await api.send(.POST, "/v1/blobs/missing", json: MissingBlobsRequest(sha256: chunk), client: client)
                missing.formUnion(try reply.decoded(MissingBlobsReply.self).missing)
            }
            return missing
        }

        /// Uploads one file's content to `/v1/blobs/{sha256}`, with a progress bar on a terminal
        /// when `showsProgress`.
        func send(_ upload: Upload, sha256: String, size: Int64, showsProgress: Bool, api: PublisherAPI, client: HTTPClient) async throws {
            let progress = ProgressBar(label: upload.logicalPath, total: size, isEnabled: showsProgress && !json && isatty(STDERR_FILENO) == 1)
            defer { progress.finish() }
            do {
                try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(upload.file)) { handle in
                    let body = HTTPClientRequest.Body.stream(
                        CountingChunks(base: handle.readChunks(chunkLength: .kibibytes(256)), progress: progress),
                        length: .known(size)
                    )
                    let digest = Data(Hex.bytes(sha256) ?? []).base64EncodedString()
                    _ = try await api.send(.PUT, "/v1/blobs/\(sha256)", body: body, headers: ["Repr-Digest": "sha-256=:\(digest):"], client: client)
                }
            } catch let failure as CommandFailure {
                if failure.message.contains("(413)") { throw CommandFailure("\(upload.file) is larger than the server accepts (413)") }
                throw failure
            } catch {
                throw CommandFailure("cannot read \(upload.file)")
            }
        }

        /// The SHA-256 (hex) and size of a file, read in chunks.
        static func digest(of path: String) async throws -> (String, Int64) {
            do {
                return try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                    var hasher = SHA256()
                    var size: Int64 = 0
                    for try await chunk in handle.readChunks(chunkLength: .kibibytes(256)) {
                        chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                        size += Int64(chunk.readableBytes)
                    }
                    return (Hex.string(hasher.finalize()), size)
                }
            } catch {
                throw CommandFailure("cannot read \(path)")
            }
        }
    }
}
/// File chunks that advance a progress bar as the HTTP client takes them.
struct CountingChunks<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    let progress: ProgressBar

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let progress: ProgressBar

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            progress.advance(by: chunk.readableBytes)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), progress: progress)
    }
}
