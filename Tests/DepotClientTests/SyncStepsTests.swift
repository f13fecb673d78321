import Crypto
import DepotAPI
import DepotHTTP
import DepotPolicy
import DepotServer
import DepotTestSupport
import Foundation
import Synchronization
import Testing

@testable import DepotClient

/// Issue 41: the sync's steps for an app that decides when each happens. `check()` says what
/// an update costs and changes nothing; `download()` stages it unseen; `apply()` switches with no
/// network, and refuses when nothing whole is staged for the release the folder holds.
@Suite("check, download, apply")
struct SyncStepsTests {
    static let large = Fixture.pseudoRandom(count: 3_000_000, seed: 71)  // streamed, whole
    static let text = Data((Fixture.text + Fixture.text + Fixture.text))  // gzip

    static func contents(_ folder: URL, _ path: String) -> Data? { SyncTests.contents(folder, path) }

    /// A server whose release 1 (`a.txt`) a client of a fresh folder, configured so, has synced.
    static func withReleaseOne(
        configuration: DepotClient.Configuration = .init(),
        _ body: @Sendable (InProcessServer, URL, DepotClient) async throws -> Void
    ) async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("a.txt", Data("one\n".utf8))])
            try await withTemporaryDirectory { folder in
                let client = DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: configuration)
                _ = try await client.sync()
                try await body(server, folder, client)
            }
        }
    }

    @Test("check says what a download then transfers; download changes nothing the app sees; apply switches; a second apply has nothing to apply")
    func threeSteps() async throws {
        try await Self.withReleaseOne { server, folder, client in
            try await server.publish([("big.bin", Self.large), ("doc.txt", Self.text)])

            let plan = try await client.check()
            #expect(!plan.isUpToDate && plan.release?.number == 3)
            #expect(plan.files.map(\.path) == ["big.bin", "doc.txt"])
            #expect(plan.files.map(\.way) == [.full, .gzip])
            #expect(plan.requiredBytes == Int64(Self.large.count + Self.text.count))
            #expect(client.currentRelease?.number == 1 && Self.contents(folder, "big.bin") == nil)

            let downloaded = try await client.download()
            #expect(downloaded.failedCount == 0)
            #expect(client.currentRelease?.number == 1 && Self.contents(folder, "big.bin") == nil, "downloading changed the folder")
            // What check expected is what came, within 5 %.
            let transferred = downloaded.files.reduce(0) { $0 + $1.bytesTransferred }
            #expect(
                abs(Double(transferred - plan.expectedBytes)) <= Double(plan.expectedBytes) * 0.05,
                "\(transferred) against \(plan.expectedBytes)"
            )

            let applied = try client.apply()
            #expect(applied.number == 3 && client.currentRelease?.number == 3)
            #expect(Self.contents(folder, "big.bin") == Self.large && Self.contents(folder, "doc.txt") == Self.text)
            let again = #expect(throws: SyncError.self) { try client.apply() }
            #expect(again?.code == .notStaged)
            #expect(try await client.check().isUpToDate)
        }
    }

    @Test(
        "progress as an AsyncSequence: the whole is known before the first byte, the bytes done grow to what came, the files in flight are the release's"
    )
    func progressSequence() async throws {
        try await Self.withReleaseOne { server, folder, client in
            try await server.publish([("big.bin", Self.large), ("doc.txt", Self.text)])
            let expected = try await client.check().expectedBytes

            let (updates, progress) = AsyncStream.makeStream(of: SyncProgress.self)
            async let download = client.download(progress: progress)
            var seen: [SyncProgress] = []
            for await update in updates { seen.append(update) }
            let report = try await download

            #expect(seen.first == SyncProgress(bytesDone: 0, bytesExpected: expected, filesTotal: 2))
            #expect(seen.allSatisfy { $0.bytesExpected == expected && $0.filesTotal == 2 })
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytesDone <= $1.bytesDone }, "bytes done went back")
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.filesDone <= $1.filesDone }, "files done went back")
            #expect(seen.allSatisfy { $0.fileBytesDone <= $0.fileBytesExpected || $0.fileBytesExpected == 0 })
            #expect(Set(seen.compactMap(\.file)) == ["big.bin", "doc.txt"])
            #expect(seen.last?.bytesDone == report.files.reduce(0) { $0 + $1.bytesTransferred })
            #expect(seen.last?.filesDone == 2)
            #expect(seen.first?.fractionDone == 0 && zip(seen, seen.dropFirst()).allSatisfy { $0.fractionDone <= $1.fractionDone })

            // The closure variant gives the same one shape.
            try client.apply()
            try await server.publish([("more.txt", Self.text + Data("more".utf8))])
            let told = Mutex<[SyncProgress]>([])
            _ = try await client.download { progress in told.withLock { $0.append(progress) } }
            let closure = told.withLock { $0 }
            #expect(closure.first?.bytesDone == 0 && closure.first?.filesTotal == 1, "\(String(describing: closure.first))")
            #expect(closure.last?.filesDone == 1 && closure.last?.file == "more.txt", "\(String(describing: closure.last))")
        }
    }

    @Test("a download cut off mid-way leaves nothing to apply, and the folder as it was; the next download resumes and applies")
    func cutDownload() async throws {
        try await Self.withReleaseOne { server, folder, client in
            try await server.publish([("big.bin", Self.large)])

            // Cancelled from its progress, once the first bytes have arrived.
            let running = Mutex<Task<SyncReport, any Error>?>(nil)
            let download = Task {
                try await client.download { progress in
                    if progress.bytesDone > 0 { running.withLock { $0?.cancel() } }
                }
            }
            running.withLock { $0 = download }
            let report = try? await download.value
            #expect(report.map { $0.failedCount > 0 } ?? true, "the cut download reported success")

            let refused = #expect(throws: SyncError.self) { try client.apply() }
            #expect(refused?.code == .notStaged, "\(String(describing: refused))")
            #expect(client.currentRelease?.number == 1 && Self.contents(folder, "big.bin") == nil)
            #expect(Self.contents(folder, "a.txt") == Data("one\n".utf8))

            // What the cut download left is not expected again: only the rest (on this fast link
            // the cut may come once every byte is in, and then the rest is nothing).
            let rest = try await client.check().expectedBytes
            #expect(rest < Int64(Self.large.count), "\(rest) bytes expected after the cut")
            let resumed = try await client.download()
            #expect(resumed.failedCount == 0)
            let transferred = resumed.files.reduce(0) { $0 + $1.bytesTransferred }
            #expect(abs(Double(transferred - rest)) <= Double(Self.large.count) * 0.05, "\(transferred) transferred, \(rest) expected")
            #expect(try client.apply().number == 2)
            #expect(Self.contents(folder, "big.bin") == Self.large)
        }
    }

    /// Files under `path` in `folder`.
    static func files(_ folder: URL, _ path: String) -> [String] {
        let root = folder.appendingPathComponent(path)
        return (FileManager.default.subpaths(atPath: root.path) ?? []).filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path, isDirectory: &isFolder) && !isFolder.boolValue
        }
    }

    @Test("a release over maximumTransferBytes is not downloaded, and the error says what it needs; a critical one has its own budget")
    func budget() async throws {
        var configuration = DepotClient.Configuration()
        configuration.maximumTransferBytes = 1_000_000
        try await Self.withReleaseOne(configuration: configuration) { server, folder, client in
            try await server.publish([("big.bin", Self.large)])

            for step in ["sync", "download"] {
                let error = await #expect(throws: SyncError.self, "\(step)") {
                    _ = step == "sync" ? try await client.sync() : try await client.download()
                }
                #expect(error?.code == .overBudget && error?.expectedBytes == Int64(Self.large.count), "\(String(describing: error))")
            }
            // Nothing beyond the documents: no partial file, nothing staged, the folder as it was.
            #expect(Self.files(folder, ".depot/partial") == [] && Self.files(folder, ".depot/staging") == [])
            #expect(client.currentRelease?.number == 1 && Self.contents(folder, "big.bin") == nil)
            #expect(try await client.check().expectedBytes == Int64(Self.large.count))

            // The same file in a critical release: over the budget, within the critical one.
            let note = Array("critical\n".utf8)
            #expect(
                [200, 201].contains(
                    try await RolloutFleetTests.send(server, "PUT", "/v1/blobs/\(Hex.string(SHA256.hash(data: note)))", body: note).status
                )
            )
            let files: [CommitRequest.File] = [
                .init(path: "a.txt", sha256: Hex.string(SHA256.hash(data: Data("one\n".utf8)))),
                .init(path: "big.bin", sha256: Hex.string(SHA256.hash(data: Self.large))),
                .init(path: "note.txt", sha256: Hex.string(SHA256.hash(data: note))),
            ]
            let commit = try await RolloutFleetTests.send(server, "POST", "/v1/releases", json: CommitRequest(files: files, critical: true))
            #expect(commit.status == 201, "\(commit.bodyText)")
            #expect(await (try? client.sync()) == nil, "no critical budget: the general one holds")
            var withCritical = client.configuration
            withCritical.criticalMaximumTransferBytes = 4_000_000
            let critical = try await DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: withCritical).sync()
            #expect(critical.rollout?.critical == true && critical.release?.number == 3)
            #expect(Self.contents(folder, "big.bin") == Self.large)
        }
    }

    @Test("a record of the staged release that names a file outside the staging folder is refused; nothing outside is read in")
    func forgedRecord() async throws {
        try await Self.withReleaseOne { server, folder, client in
            try await server.publish([("a.txt", Data("two\n".utf8))])
            _ = try await client.download()
            let secret = folder.deletingLastPathComponent().appendingPathComponent("secret-\(UUID().uuidString)")
            try Data("not Depot's".utf8).write(to: secret)
            defer { try? FileManager.default.removeItem(at: secret) }
            var staged = try JSONDecoder().decode(StagedRelease.self, from: Data(try #require(client.folder.read(.staged))))
            staged.journal.moves = [.init(staged: "../../../" + secret.lastPathComponent, path: "stolen.txt", copy: true, modified: nil)]
            try client.folder.replace(.staged) { try staged.encode(into: &$0) }

            let refused = #expect(throws: SyncError.self) { try client.apply() }
            #expect(refused?.code == .notStaged && refused?.message.contains("damaged") == true, "\(String(describing: refused))")
            #expect(Self.contents(folder, "stolen.txt") == nil && client.currentRelease?.number == 1)
        }
    }

    @Test("a download staged before the channel rolled back is dropped by the next check: apply then has nothing to apply")
    func rolledBackAfterDownload() async throws {
        try await Self.withReleaseOne { server, folder, client in
            try await server.publish([("a.txt", Data("two\n".utf8))])
            _ = try await client.download()
            let rollback = try await RolloutFleetTests.send(server, "POST", "/v1/channels/stable/rollback")
            #expect(rollback.status == 200, "\(rollback.bodyText)")
            #expect(try await client.check().isUpToDate, "the channel names release 1 again")
            let refused = #expect(throws: SyncError.self) { try client.apply() }
            #expect(refused?.code == .notStaged)
            #expect(client.currentRelease?.number == 1 && Self.contents(folder, "a.txt") == Data("one\n".utf8))
        }
    }

    @Test("with a budget, the plan and the download share what they learn of a changed local copy: its block index is fetched once")
    func planSharedWithDownload() async throws {
        var configuration = ServerConfiguration()
        configuration.publish.deltas.blockIndexMinimumBytes = 65_536
        let one = Fixture.pseudoRandom(count: 1_000_000, seed: 73)
        let two = one.prefix(400_000) + Data(repeating: 0x55, count: 1_000) + one.dropFirst(401_000)
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await server.publish([("data.bin", one)])
            try await withTemporaryDirectory { folder in
                var budgeted = DepotClient.Configuration()
                budgeted.maximumTransferBytes = 10_000_000
                let client = DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: budgeted)
                _ = try await client.sync()
                // The app writes to its copy: no patch applies to it, blocks do.
                var edited = one
                edited.replaceSubrange(700_000..<701_000, with: Data(repeating: 0x77, count: 1_000))
                try edited.write(to: folder.appendingPathComponent("data.bin"))
                try await server.publish([("data.bin", two)])

                let indexes = server.requests.total(pathPrefix: "/blobs/", pathSuffix: ".blocks")
                let report = try await client.sync()
                #expect(report.files.map(\.outcome) == [.blocks], "\(report.files)")
                #expect(server.requests.total(pathPrefix: "/blobs/", pathSuffix: ".blocks") - indexes == 1, "the index was fetched twice")
                #expect(Self.contents(folder, "data.bin") == two)
            }
        }
    }

    /// Where an apply is cut short, as by a power cut.
    static let applyCrashPoints: [SwitchStep] = [.journalWritten, .removalsDone, .moved(1), .moved(2), .stateSaved]

    /// A client of a fresh folder, configured so, that synced a release of `a.txt` and `old.txt`
    /// and downloaded the next, whose number it passes: a.txt changed, b.txt new, old.txt gone.
    static func withNextDownloaded(
        configuration: DepotClient.Configuration = .init(),
        _ body: @Sendable (URL, DepotClient, Int64) async throws -> Void
    ) async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("a.txt", Data("one\n".utf8)), ("old.txt", Data("old\n".utf8))])
            try await withTemporaryDirectory { folder in
                let client = DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: configuration)
                _ = try await client.sync()
                let removal = try await RolloutFleetTests.send(server, "DELETE", "/v1/files/old.txt")
                #expect([200, 204].contains(removal.status), "\(removal.bodyText)")
                try await server.publish([("a.txt", Data("two\n".utf8)), ("b.txt", Data("new\n".utf8))])
                let next = try #require(try await client.check().release?.number)
                _ = try await client.download()
                try await body(folder, client, next)
            }
        }
    }

    @Test(
        "an apply cut short at any step: a reader finishes it, release 2 whole; apply again returns it and drops the record",
        arguments: applyCrashPoints
    )
    func applyCrash(at point: SwitchStep) async throws {
        try await Self.withNextDownloaded { folder, client, next in
            var crashing = client
            crashing.switchFault = { step in if step == point { throw CancellationError() } }
            #expect(throws: CancellationError.self) { try crashing.apply() }
            // A reader finishes the switch its journal commits to: it reads the next release whole.
            let text = { (path: String) in Self.contents(folder, path).map { String(decoding: $0, as: UTF8.self) } }
            let read = try client.withCurrentRelease { release in (release?.number, text("a.txt"), text("b.txt"), text("old.txt")) }
            #expect(read.0 == next && read.1 == "two\n" && read.2 == "new\n" && read.3 == nil, "\(read)")
            #expect(try client.apply().number == next)
            #expect(client.folder.read(.staged) == nil)
        }
    }

    @Test("apply refuses a release downloaded over another release than the folder holds now, and changes nothing")
    func movedOn() async throws {
        try await Self.withReleaseOne { server, folder, client in
            try await server.publish([("a.txt", Data("two\n".utf8))])
            _ = try await client.download()
            // The record of what is staged, as if planned over another release.
            var staged = try JSONDecoder().decode(StagedRelease.self, from: Data(try #require(client.folder.read(.staged))))
            staged.base = String(repeating: "e", count: 64)
            try client.folder.replace(.staged) { try staged.encode(into: &$0) }

            let refused = #expect(throws: SyncError.self) { try client.apply() }
            #expect(refused?.code == .notStaged && refused?.message.contains("download again") == true)
            #expect(client.currentRelease?.number == 1 && Self.contents(folder, "a.txt") == Data("one\n".utf8))
            // A sync after it goes the whole way.
            #expect(try await client.sync().release?.number == 2)
            #expect(Self.contents(folder, "a.txt") == Data("two\n".utf8))
        }
    }
}
