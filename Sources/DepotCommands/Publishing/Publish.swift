import ArgumentParser
import AsyncHTTPClient
import Crypto
import DepotAPI
import DepotClient
import DepotConcurrency
import DepotHTTP
import DepotManifest
import DepotPublisher
import DepotServer
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import _NIOFileSystem

extension Depot {
    /// `depot publish FILE|DIR... --server URL`: uploads files to a running server as one release.
    struct Publish: DepotCommand {
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
        var items: [PathArgument] = []

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
        var tokenFile: PathArgument?

        @Flag(help: "Print the server's JSON reply instead of a line per file.")
        var json = false

        func validate() throws {
            if let minimumClientVersion, ClientVersion(minimumClientVersion) == nil {
                throw ValidationError("--minimum-client-version takes one to four numbers separated by dots, as 2.3.1")
            }
            guard !items.isEmpty || !deletions.isEmpty else { throw ValidationError("Name at least one file or folder to publish, or a --delete") }
            if logicalPath != nil, items.count > 1 {
                throw ValidationError("--as takes a single FILE or DIR")
            }
        }

        @Option(
            help:
                "Where to keep what this publish sent (each file's status and SHA-256, and the release made), so that the next one reads only files whose status changed and sends only what changed. Default: one file per server, channel and items under $XDG_CACHE_HOME/depot/publish/."
        )
        var index: PathArgument?

        @Flag(help: "Read every file and send the whole list, without reading or writing the publish index.")
        var noIndex = false

        @Flag(help: "Mark the new release critical: apps should apply it at once.")
        var critical = false

        @Option(help: "The lowest app version that can use the new release (as 2.3.1): older apps keep the newest earlier release they can use.")
        var minimumClientVersion: String?

        @Option(help: "A note on the new release (who, why; at most 500 bytes of UTF-8), shown by release ls, the dashboard and the audit trail.")
        var message: String?

        func run(in environment: CommandEnvironment) async throws {
            try await reportingFailures(in: environment) {
                let started = Int64(Date().timeIntervalSince1970 * 1e9)
                let api = PublisherAPI(
                    baseURL: try server.baseURL(in: environment),
                    token: try PublisherAPI.readToken(file: tokenFile, in: environment)
                )
                let paths = items.map { $0.path(in: environment) }
                let indexURL =
                    noIndex
                    ? nil
                    : index.map { $0.url(in: environment) }
                        ?? PublishIndex.defaultLocation(
                            server: api.baseURL,
                            channel: channel,
                            items: paths,
                            logicalPath: logicalPath,
                            environment: environment.variables
                        )
                // Read while the tree is walked: each is a third of an unchanged publish.
                async let loaded = indexURL.map(PublishIndex.load(from:))
                let files: [LocalFile]
                do {
                    files = try TreeWalk.files(of: paths, logicalPath: logicalPath)
                } catch let error as PublisherError {
                    throw CommandFailure(PathArgument.asGiven(error.message, items, in: environment))
                }
                let previous = await loaded
                let digests: [TreeDigests.Digest]
                do {
                    digests = try await TreeDigests.digests(of: files, index: previous, started: started)
                } catch let error as PublisherError {
                    throw CommandFailure(PathArgument.asGiven(error.message, items, in: environment))
                }
                let listed = digests.map { (path: $0.file.logicalPath, sha256: $0.sha256) }
                let phases = PublishPhases(isEnabled: !json, isTerminal: environment.isTerminal, errors: environment.errors)
                defer { phases.finish() }
                try await environment.withTransport { client in
                    func commitPlan(index: PublishIndex?) -> CommitPlan {
                        var plan = CommitPlan(channel: channel, files: listed, deletions: deletions, replace: replace, index: index)
                        plan.request.critical = critical ? true : nil
                        plan.request.minimumClientVersion = minimumClientVersion
                        plan.request.message = message
                        return plan
                    }
                    var plan = commitPlan(index: previous)
                    var clock = ContinuousClock.now
                    var sent = try await upload(plan.request.files ?? [], of: digests, api: api, client: client, phases: phases, in: environment)
                    phases.committing(
                        channel: channel,
                        listed: plan.request.files?.count ?? 0,
                        sent: sent.bytes,
                        files: sent.files,
                        after: .now - clock
                    )
                    clock = .now
                    var reply = try await api.send(
                        .POST,
                        "/v1/releases",
                        json: plan.request,
                        transport: client,
                        allowing: plan.isIncremental ? [409] : []
                    )
                    if reply.status == .conflict {
                        // The channel moved since the index's release: the whole list.
                        plan = commitPlan(index: nil)
                        clock = .now
                        let more = try await upload(plan.request.files ?? [], of: digests, api: api, client: client, phases: phases, in: environment)
                        sent = (sent.files + more.files, sent.bytes + more.bytes)
                        phases.committing(
                            channel: channel,
                            listed: plan.request.files?.count ?? 0,
                            sent: more.bytes,
                            files: more.files,
                            after: .now - clock
                        )
                        clock = .now
                        reply = try await api.send(.POST, "/v1/releases", json: plan.request, transport: client)
                    }
                    phases.finish()
                    phases.ended("committed in \(PublishPhases.seconds(.now - clock))")
                    let commit = try reply.decoded(CommitReply.self)
                    if let indexURL, let release = commit.release {
                        let next = plan.indexAfterCommit(
                            files: digests,
                            previous: previous,
                            releaseID: release.id
                        )
                        // Nothing to write when nothing changed: 100,000 entries are not rewritten.
                        if next != previous { try? next.save(to: indexURL) }
                    }
                    if json {
                        environment.print(reply.text)
                    } else {
                        report(
                            commit,
                            unchanged: commit.unchanged + listed.count - (plan.request.files?.count ?? 0),
                            sent: sent.bytes,
                            in: environment
                        )
                    }
                }
            }
        }

        /// Uploads the content of `files` (the commit's list) that the server lacks; returns the
        /// files and bytes sent. Large files one at a time, each with its progress bar; small ones in
        /// batches (``UploadBatches``), two at a time, so that one's transfer overlaps the
        /// other's group commit on the server.
        func upload(
            _ files: [CommitRequest.File],
            of digests: [TreeDigests.Digest],
            api: PublisherAPI,
            client: any HTTPTransport,
            phases: PublishPhases,
            in environment: CommandEnvironment
        ) async throws -> (files: Int, bytes: Int64) {
            let listed = Set(files.map(\.sha256))
            let missing = try await Self.missing(listed, api: api, client: client)
            var toSend: [TreeDigests.Digest] = []
            var queued = Set<String>()
            for digest in digests where missing.contains(digest.sha256) && queued.insert(digest.sha256).inserted {
                toSend.append(digest)
            }
            let (alone, batches) = UploadBatches.plan(toSend)
            // The large files go up while the batches do: the server hashes and compresses a
            // large file on one core while it stores batches on the other.
            async let large: Void = {
                for file in alone {
                    try await send(file, showsProgress: true, api: api, client: client, phases: phases, in: environment)
                }
            }()
            _ = try await mapConcurrently(batches, width: 2) { batch in
                let body: [UInt8]
                do {
                    body = try await NIOThreadPool.singleton.runIfActive { try UploadBatches.body(of: batch) }
                } catch let error as PublisherError {
                    throw CommandFailure(error.message)
                }
                do {
                    _ = try await api.send(
                        .POST,
                        "/v1/blobs",
                        body: .bytes(ByteBuffer(bytes: body)),
                        headers: ["Content-Type": BlobBatch.mediaType],
                        transport: client
                    )
                } catch let failure as CommandFailure where failure.message.contains("(413)") {
                    let files = batch.count == 1 ? batch[0].file.file : "a batch of \(batch.count) files (\(ByteCountText(Int64(body.count))))"
                    throw CommandFailure("\(files) is larger than the server accepts (413)")
                }
            }
            try await large
            return (toSend.count, toSend.reduce(0) { $0 + $1.file.status.size })
        }

        /// Prints a line per file published or removed, and one for the release.
        func report(_ reply: CommitReply, unchanged: Int, sent: Int64, in environment: CommandEnvironment) {
            for file in reply.files {
                let gzip = file.gzipSize.map { ", gzip \(ByteCountText($0))" } ?? ""
                environment.print("published \(file.path) v\(file.version) (\(ByteCountText(file.size))\(gzip)) sha256 \(file.sha256.prefix(12))…")
            }
            for path in reply.removed { environment.print("removed \(path)") }
            let number = reply.release?.number ?? 0
            if reply.created {
                let counts = unchanged > 0 ? " (\(reply.files.count) published, \(unchanged) unchanged)" : ""
                environment.print(
                    "release \(number) on \(reply.channel): \(reply.release?.files ?? 0) files\(counts), \(ByteCountText(sent)) uploaded"
                )
            } else {
                environment.print("nothing changed: \(reply.channel) stays on release \(number)")
            }
        }

        /// Which of `hashes` the server lacks: `POST /v1/blobs/missing`, a few thousand hashes a
        /// request.
        static func missing(_ hashes: Set<String>, api: PublisherAPI, client: any HTTPTransport) async throws -> Set<String> {
            let hashes = Array(hashes)
            var missing = Set<String>()
            for start in stride(from: 0, to: hashes.count, by: 5000) {
                let chunk = Array(hashes[start..<min(start + 5000, hashes.count)])
                let reply = try await api.send(.POST, "/v1/blobs/missing", json: MissingBlobsRequest(sha256: chunk), transport: client)
                missing.formUnion(try reply.decoded(MissingBlobsReply.self).missing)
            }
            return missing
        }

        /// Uploads one file's content to `/v1/blobs/{sha256}`, with a progress bar on a terminal
        /// when `showsProgress`, replaced once every byte is sent by the phase the server's
        /// answer waits for (on a terminal: `phases` tells it).
        func send(
            _ digest: TreeDigests.Digest,
            showsProgress: Bool,
            api: PublisherAPI,
            client: any HTTPTransport,
            phases: PublishPhases,
            in environment: CommandEnvironment
        ) async throws {
            let upload = digest.file
            let shown = PathArgument.asGiven(upload.file, items, in: environment)
            let progress = ProgressBar(
                label: upload.logicalPath,
                total: upload.status.size,
                isEnabled: showsProgress && !json && environment.isTerminal,
                errors: environment.errors
            )
            defer { progress.finish() }
            do {
                try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(upload.file)) { handle in
                    let body = HTTPClientRequest.Body.stream(
                        CountingChunks(base: handle.readChunks(chunkLength: .kibibytes(256)), progress: progress) {
                            guard progress.isEnabled else { return }
                            progress.finish()
                            phases.begin("\(upload.logicalPath): the server checks its SHA-256 and stores it (gzip, block index)")
                        },
                        length: .known(upload.status.size)
                    )
                    let sha256 = Data(Hex.bytes(digest.sha256) ?? []).base64EncodedString()
                    _ = try await api.send(
                        .PUT,
                        "/v1/blobs/\(digest.sha256)",
                        body: body,
                        headers: ["Repr-Digest": "sha-256=:\(sha256):"],
                        transport: client
                    )
                }
            } catch let failure as CommandFailure {
                if failure.message.contains("(413)") { throw CommandFailure("\(shown) is larger than the server accepts (413)") }
                throw failure
            } catch {
                throw CommandFailure("cannot read \(shown)")
            }
        }
    }
}
/// File chunks that advance a progress bar as the HTTP client takes them.
struct CountingChunks<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    let progress: ProgressBar
    /// Called once the last chunk was taken: the bar is full, the server's work begins.
    var sent: @Sendable () -> Void = {}

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let progress: ProgressBar
        let sent: @Sendable () -> Void

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else {
                sent()
                return nil
            }
            progress.advance(by: chunk.readableBytes)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), progress: progress, sent: sent)
    }
}
