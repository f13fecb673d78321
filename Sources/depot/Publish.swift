import ArgumentParser
import AsyncHTTPClient
import Crypto
import DepotHTTP
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import _NIOFileSystem

extension Depot {
    /// `depot publish FILE|DIR... --server URL`: uploads files to a running server.
    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish files to a Depot server.",
            discussion: """
                Each FILE is published under its name, or under --as PATH. A DIR publishes every file below it \
                (hidden ones excepted) under its path relative to DIR, prefixed with --as when given. \
                The token comes from --token-file or DEPOT_TOKEN. Every upload carries its SHA-256 \
                (Repr-Digest), which the server checks before publishing.
                """
        )

        @Argument(help: "Files or folders to publish.")
        var items: [String]

        @Option(name: .customLong("as"), help: "The logical path of a single FILE, or the prefix for a DIR.")
        var logicalPath: String?

        @OptionGroup var server: ServerOptions

        @Option(help: "A file holding the publish token (or set DEPOT_TOKEN).")
        var tokenFile: String?

        @Flag(help: "Print one JSON object per file instead of a summary line.")
        var json = false

        func validate() throws {
            guard !items.isEmpty else { throw ValidationError("Name at least one file or folder to publish") }
            if logicalPath != nil, items.count > 1 {
                throw ValidationError("--as takes a single FILE or DIR")
            }
        }

        func run() async throws {
            try await reportingFailures {
                let baseURL = try server.baseURL()
                let token = try readToken()
                let uploads = try plan()
                try await withHTTPClient { client in
                    for upload in uploads {
                        try await publish(upload, to: baseURL, token: token, client: client)
                    }
                }
            }
        }

        /// One file to send and the path it gets.
        struct Upload {
            let file: String
            let logicalPath: String
        }

        func readToken() throws -> String {
            if let tokenFile {
                guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                    throw CommandFailure("cannot read the token file \(tokenFile)")
                }
                return text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard let token = ProcessInfo.processInfo.environment["DEPOT_TOKEN"], !token.isEmpty else {
                throw CommandFailure("no publish token: use --token-file FILE or set DEPOT_TOKEN")
            }
            return token
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

        func publish(_ upload: Upload, to baseURL: String, token: String, client: HTTPClient) async throws {
            let fileSystem = FileSystem.shared
            guard let info = try? await fileSystem.info(forFileAt: FilePath(upload.file)) else {
                throw CommandFailure("cannot read \(upload.file)")
            }
            let sha256 = try await Self.digest(of: upload.file)
            var request = HTTPClientRequest(url: baseURL + "/v1/files/" + RequestPath.encode(upload.logicalPath))
            request.method = .PUT
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            request.headers.add(name: "Repr-Digest", value: "sha-256=:\(Data(sha256).base64EncodedString()):")
            let progress = ProgressBar(label: upload.logicalPath, total: info.size, isEnabled: !json && isatty(STDERR_FILENO) == 1)
            let response: HTTPClientResponse
            let body: ByteBuffer
            do {
                (response, body) = try await fileSystem.withFileHandle(forReadingAt: FilePath(upload.file)) { handle in
                    request.body = .stream(
                        CountingChunks(base: handle.readChunks(chunkLength: .kibibytes(256)), progress: progress),
                        length: .known(info.size)
                    )
                    let response = try await client.execute(request, timeout: .hours(24))
                    return (response, try await response.body.collect(upTo: 1 << 20))
                }
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                progress.finish()
                throw CommandFailure(describeConnectionError(error, server: baseURL))
            }
            progress.finish()
            let reply = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
            guard (200..<300).contains(response.status.code) else {
                let message = (reply["error"] as? [String: Any])?["message"] as? String ?? response.status.reasonPhrase
                switch response.status.code {
                case 401: throw CommandFailure("the server refused the token (401): \(message)")
                case 413: throw CommandFailure("\(upload.file) is larger than the server accepts (413): \(message)")
                default: throw CommandFailure("publishing \(upload.logicalPath) failed (\(response.status.code)): \(message)")
                }
            }
            if json {
                print(String(decoding: Data(buffer: body), as: UTF8.self))
            } else {
                let version = reply["version"] as? Int ?? 0
                let hash = (reply["sha256"] as? String ?? "").prefix(12)
                let gzip = (reply["gzipSize"] as? Int).map { ", gzip \(ByteCountText(Int64($0)))" } ?? ""
                let verb = reply["unchanged"] as? Bool == true ? "unchanged" : "published"
                print("\(verb) \(upload.logicalPath) v\(version) (\(ByteCountText(info.size))\(gzip)) sha256 \(hash)…")
            }
        }

        /// The SHA-256 of a file, read in chunks.
        static func digest(of path: String) async throws -> [UInt8] {
            try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                var hasher = SHA256()
                for try await chunk in handle.readChunks(chunkLength: .kibibytes(256)) {
                    chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                }
                return Array(hasher.finalize())
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
