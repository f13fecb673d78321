import DepotAPI
import DepotClient
import DepotServer
import DepotTestSupport
import Foundation
import Synchronization
import Testing

/// A client with an ordered list of servers (static mirrors, then the origin): which one serves
/// it, when mirrors die mid-sync, serve tampered files, fail or hang; and which one takes its
/// health reports: the report server only, never a mirror (``mirrorsOnly()``…).
@Suite("Mirror failover and the report server")
struct MirrorFailoverTests {
    typealias Stage = ExportStage

    /// Three 6 MB files and 40 small ones.
    static func writeTree(_ stage: Stage, _ tree: String) throws {
        try stage.writeTree(tree, edit: 0)
        for index in 0..<3 {
            try stage.root.write(Fixture.pseudoRandom(count: 6 << 20, seed: UInt64(1001 + index * 2)), to: "\(tree)/media/\(index).bin")
        }
    }

    static func client(_ stage: Stage, servers: [String], folder: String) throws -> DepotClient {
        DepotClient(
            servers: try servers.map { try #require(URL(string: $0 + "/")) },
            directory: stage.root.appendingPathComponent(folder),
            configuration: .init(trustedKeys: [stage.publicKey], parallelDownloads: 2)
        )
    }

    @Test("the first mirror killed mid-sync: the sync completes from the second, and nothing it had is downloaded again")
    func mirrorDiesMidSync() async throws {
        try await Stage.with { stage in
            try Self.writeTree(stage, "v1")
            try await stage.serving { origin in
                try await stage.publish("v1", to: origin)
                for folder in ["first", "second"] { #expect(try await stage.export(to: folder).status == 0) }
                try await Nginx.serving(export: stage.root.appendingPathComponent("first")) { first in
                    try await Nginx.serving(export: stage.root.appendingPathComponent("second")) { second in
                        // The first mirror is far away: its files arrive slowly, so that it dies
                        // with downloads under way.
                        try await FaultyRelay.with(upstreamPort: first.port) { relay in
                            relay.slowDownBlobResponses(by: .milliseconds(20))
                            let far = "http://127.0.0.1:\(relay.port)"
                            let client = try Self.client(stage, servers: [far, second.url(""), origin], folder: "client")
                            // Once a file arrived whole and another is 1 MiB in, the first mirror dies.
                            let state = Mutex((arrived: Set<String>(), killed: false))
                            let report = try await client.sync { progress in
                                state.withLock { state in
                                    guard let path = progress.file else { return }
                                    if progress.fileBytesDone == progress.fileBytesExpected { state.arrived.insert(path) }
                                    guard !state.killed, !state.arrived.isEmpty, !state.arrived.contains(path),
                                        progress.fileBytesDone > 1 << 20
                                    else { return }
                                    first.kill()
                                    relay.sever()
                                    state.killed = true
                                }
                            }
                            #expect(state.withLock { $0.killed })
                            #expect(report.release?.number == 1)
                            #expect(report.signature == .verified)
                            #expect(report.failedCount == 0)
                            #expect(report.server == second.url("/"))
                            #expect(report.failovers.map(\.server) == [far + "/"])
                            #expect(try stage.holdsTree("client", "v1"))

                            // What arrived from the first mirror, checked, the second was never asked
                            // for; what the second sent were the files the first had not delivered,
                            // the one cut short resumed (nginx logs a response once it is in its
                            // socket, so its own log cannot say what arrived).
                            let blobPaths = { (files: [SyncReport.File]) in
                                Set(
                                    try files.filter { $0.outcome != .packed }.map { file in
                                        "/blobs/" + Fixture.sha256(try Data(contentsOf: stage.root.appendingPathComponent("v1/\(file.path)")))
                                            + (file.outcome == .gzip ? ".gz" : "")
                                    }
                                )
                            }
                            let fromFirst = try blobPaths(report.files.filter { $0.server == far + "/" })
                            let fromSecond = try blobPaths(report.files.filter { $0.server == second.url("/") })
                            let askedOfSecond = second.requests.filter { $0.path.hasPrefix("/blobs/") }
                            #expect(report.files.contains { $0.server == far + "/" }, "files came from the first mirror before it died")
                            #expect(Set(askedOfSecond.map(\.path)) == fromSecond, "\(askedOfSecond) \(fromSecond)")
                            #expect(fromFirst.isDisjoint(with: fromSecond))
                            #expect(askedOfSecond.contains { $0.status == 206 }, "the download cut short resumed: \(askedOfSecond)")
                            #expect(report.files.contains { $0.outcome == .resumed && $0.server == second.url("/") })
                            #expect(Set(report.files.compactMap(\.server)) == [far + "/", second.url("/")])
                        }
                    }
                }
            }
        }
    }

    @Test("a mirror serving a tampered file: the client refuses it, fails over, and completes")
    func tamperedMirror() async throws {
        try await Stage.with { stage in
            try Self.writeTree(stage, "v1")
            try await stage.serving { origin in
                try await stage.publish("v1", to: origin)
                #expect(try await stage.export(to: "tampered").status == 0)
                try stage.tamper("tampered", blobOf: "v1/media/1.bin")

                try await Nginx.serving(export: stage.root.appendingPathComponent("tampered")) { mirror in
                    let client = try Self.client(stage, servers: [mirror.url(""), origin], folder: "client")
                    let report = try await client.sync()
                    #expect(report.failedCount == 0)
                    #expect(report.release?.number == 1)
                    #expect(report.server == origin + "/")
                    #expect(report.failovers.count == 1)
                    #expect(report.failovers.first?.error.contains("media/1.bin") == true, "\(report.failovers)")
                    #expect(report.files.first { $0.path == "media/1.bin" }?.server == origin + "/")
                    #expect(report.files.first { $0.path == "media/0.bin" }?.server == mirror.url("/"), "a verified file stays from the mirror")
                    #expect(try stage.holdsTree("client", "v1"))
                }
            }
        }
    }

    @Test("a server answering 503 and one that never answers: the client goes on to the next, and says why")
    func brokenAndHungServers() async throws {
        try await Stage.with { stage in
            try stage.writeTree("v1", edit: 0)
            try await stage.serving { origin in
                try await stage.publish("v1", to: origin)
                #expect(try await stage.export(to: "export").status == 0)
                try await BrokenServer.with(.status(503)) { broken in
                    try await BrokenServer.with(.silence) { hung in
                        try await Nginx.serving(export: stage.root.appendingPathComponent("export")) { mirror in
                            // Deadlines judged by a clock that moves only while the hung
                            // server holds the client: the 503 arrives however long this loaded
                            // process takes, and the mirror's transfers are judged at a
                            // standstill.
                            let clock = ManualClock()
                            let client = DepotClient(
                                servers: try [broken.url("/"), hung.url("/"), mirror.url("/")].map { try #require(URL(string: $0)) },
                                directory: stage.root.appendingPathComponent("client"),
                                configuration: .init(trustedKeys: [stage.publicKey], transferClock: clock, documentTimeout: 15)
                            )
                            let report = try await withThrowingTaskGroup(of: SyncReport?.self) { group in
                                group.addTask { try await client.sync() }
                                group.addTask {
                                    // Once the hung server holds the request and the transfer's
                                    // watch waits on the clock: its deadline passes, once.
                                    while hung.requestsRead == 0 || clock.sleepers == 0 {
                                        try? await Task.sleep(for: .milliseconds(20))
                                        if Task.isCancelled { return nil }
                                    }
                                    clock.advance(by: .seconds(15))
                                    return nil
                                }
                                var report: SyncReport?
                                while let finished = try await group.next() {
                                    guard let finished else { continue }
                                    report = finished
                                    group.cancelAll()
                                }
                                return try #require(report)
                            }
                            #expect(report.release?.number == 1)
                            #expect(report.server == mirror.url("/"))
                            #expect(report.failovers.map(\.server) == [broken.url("/"), hung.url("/")])
                            #expect(report.failovers.first?.error.contains("503") == true, "\(report.failovers)")
                            #expect(report.failovers.last?.error.contains("within 15 s") == true, "the hang cost its timeout: \(report.failovers)")
                            let holds = try stage.holdsTree("client", "v1")
                            #expect(holds)
                        }
                    }
                }
            }
        }
    }
}

/// Issue 57, defect 28: health reports go only to the report server (``ReportDestination``),
/// never to a mirror; reports that wait undelivered, and those the queue's bound dropped, are
/// said in `depot sync`'s summary and `--json`. Real `depot serve`, nginx over a static export,
/// and a server that answers 202 to everything.
extension MirrorFailoverTests {
    /// Publishes a small tree to a running origin, exports it, and runs `body` with the origin
    /// and nginx serving the export.
    static func withMirror(_ body: @escaping @Sendable (Stage, String, Nginx) async throws -> Void) async throws {
        try await Stage.with { stage in
            try stage.writeTree("v1", count: 3, edit: 0)
            try await stage.serving { origin in
                try await stage.publish("v1", to: origin)
                #expect(try await stage.export(to: "export").status == 0)
                try await Nginx.serving(export: stage.root.appendingPathComponent("export")) { mirror in
                    try await body(stage, origin, mirror)
                }
            }
        }
    }

    /// `depot sync` of `client` with `arguments`, trusting the stage's key: exit status 0, and
    /// its output.
    static func sync(_ stage: Stage, _ arguments: [String]) async throws -> String {
        let result = try await InProcessCLI.run(
            ["sync", "--dir", "client", "--trusted-key", stage.publicKey, "--reports"] + arguments,
            token: nil,
            in: stage.root
        )
        #expect(result.status == 0, "a sync that succeeded exits 0, reports or not: \(result.errors)")
        return result.output
    }

    /// The report of `depot sync --json` with `arguments`.
    static func syncJSON(_ stage: Stage, _ arguments: [String]) async throws -> SyncReport {
        try JSONDecoder().decode(SyncReport.self, from: Data(try await sync(stage, arguments + ["--json"]).utf8))
    }

    /// The reports waiting in the client's queue.
    static func queued(_ stage: Stage) -> String {
        FileManager.default.contents(atPath: stage.path("client/.depot/reports.json")).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    @Test(
        "defect 28a: mirrors only, the last answering 202 to everything: it is never asked, and the summary says the report waits, with no report server"
    )
    func mirrorsOnly() async throws {
        try await Self.withMirror { stage, _, mirror in
            try await BrokenServer.with(.status(202)) { swallower in
                let output = try await Self.sync(stage, ["--server", mirror.url(""), "--fallback-server", swallower.url("")])
                #expect(output.contains("release 1 of stable"), "\(output)")
                #expect(output.contains("; 1 report queued: no report server"), "\(output)")
                #expect(swallower.requestsRead == 0, "the last mirror is not asked")
                #expect(!mirror.requests.contains { $0.path == "/v1/reports" }, "nor the first")
                #expect(Self.queued(stage).contains("applied"), "the report is kept: \(Self.queued(stage))")

                let report = try await Self.syncJSON(stage, ["--server", mirror.url(""), "--fallback-server", swallower.url("")])
                let reports = try #require(report.reports)
                #expect(reports.queued == 1 && reports.server == nil && reports.dropped == 0, "\(reports)")
                #expect(reports.reason?.hasPrefix("no report server") == true, "\(reports)")
                #expect(swallower.requestsRead == 0)
            }
        }
    }

    @Test("defect 28b: --report-server names the origin: the report is delivered there, past both mirrors, and none waits")
    func reportServerDelivers() async throws {
        try await Self.withMirror { stage, origin, mirror in
            try await BrokenServer.with(.status(202)) { swallower in
                let report = try await Self.syncJSON(
                    stage,
                    ["--server", mirror.url(""), "--fallback-server", swallower.url(""), "--report-server", origin]
                )
                #expect(report.server == mirror.url("/"), "the mirror served the release")
                #expect(report.reports == ReportDelivery(queued: 0, reason: nil, dropped: 0, capacity: 100, server: origin + "/"))
                #expect(Self.queued(stage) == "[]", "the origin took the report")
                #expect(swallower.requestsRead == 0 && !mirror.requests.contains { $0.path == "/v1/reports" })
            }
        }
    }

    @Test(
        "defect 28c: a static mirror as the report server refuses the reports: the summary and --json name its answer, and the reports the bound dropped"
    )
    func staticMirrorRefuses() async throws {
        try await Self.withMirror { stage, _, mirror in
            let first = try await Self.syncJSON(stage, ["--server", mirror.url(""), "--max-queued-reports", "2"])
            let status = try #require(mirror.requests.last { $0.path == "/v1/reports" }?.status, "the one server is the report server")
            #expect(status >= 400)
            #expect(
                first.reports?.queued == 1 && first.reports?.reason == "the report server \(mirror.url("/")) answered \(status)",
                "\(String(describing: first.reports))"
            )

            // The app reports twice more while the mirror refuses: the queue's bound of 2 drops the oldest.
            var configuration = DepotClient.Configuration(trustedKeys: [stage.publicKey], sendsReports: true)
            configuration.reportQueueCapacity = 2
            let app = DepotClient(
                server: try #require(URL(string: mirror.url("/"))),
                directory: stage.root.appendingPathComponent("client"),
                configuration: configuration
            )
            try await app.report(.healthy)
            try await app.report(.failed(reason: "the app could not start"))
            #expect(try app.reportDelivery()?.dropped == 1)

            let output = try await Self.sync(stage, ["--server", mirror.url(""), "--max-queued-reports", "2"])
            #expect(
                output.contains("; 2 reports queued: the report server \(mirror.url("/")) answered \(status); 1 dropped at the queue's bound of 2"),
                "\(output)"
            )
            let report = try await Self.syncJSON(stage, ["--server", mirror.url(""), "--max-queued-reports", "2"])
            #expect(
                report.reports
                    == ReportDelivery(
                        queued: 2,
                        reason: "the report server \(mirror.url("/")) answered \(status)",
                        dropped: 1,
                        capacity: 2,
                        server: mirror.url("/")
                    )
            )
        }
    }

    @Test("health reports go past the static mirror, which is not asked, to the origin, the report server")
    func reportsReachTheOrigin() async throws {
        try await Stage.with { stage in
            try stage.writeTree("v1", edit: 0)
            try await stage.serving { origin in
                try await stage.publish("v1", to: origin)
                #expect(try await stage.export(to: "export").status == 0)
                try await Nginx.serving(export: stage.root.appendingPathComponent("export")) { mirror in
                    let originURL = try #require(URL(string: origin + "/"))
                    let client = DepotClient(
                        servers: [try #require(URL(string: mirror.url("/"))), originURL],
                        directory: stage.root.appendingPathComponent("client"),
                        configuration: .init(trustedKeys: [stage.publicKey], sendsReports: true, reportServer: originURL)
                    )
                    let report = try await client.sync()
                    #expect(report.server == mirror.url("/"), "the mirror served the release")
                    #expect(!mirror.requests.contains { $0.path == "/v1/reports" }, "the mirror is not asked")
                    let queue = stage.root.appendingPathComponent("client/.depot/reports.json")
                    let waiting = FileManager.default.contents(atPath: queue.path).map { String(decoding: $0, as: UTF8.self) } ?? ""
                    #expect(!waiting.contains("applied"), "the origin took the report: \(waiting)")
                }
            }
        }
    }

    @Test("reports go to the report server only: a first server that answers 202 to everything, and keeps nothing, loses none of them")
    func reportsOnlyToTheOrigin() async throws {
        try await LiveServer.withPublishing { server in
            let published = try await RawHTTPConnection.with(port: server.port) {
                try await $0.request("PUT", "/v1/files/a.txt", headers: [("Authorization", "Bearer \(LiveServer.token)")], body: Array("a\n".utf8))
            }
            #expect(published.status == 201)
            try await BrokenServer.with(.status(202)) { mirror in
                try await withTemporaryDirectory { folder in
                    let servers = try [mirror.url("/"), server.url("/")].map { try #require(URL(string: $0)) }
                    let configuration = DepotClient.Configuration(sendsReports: true, reportServer: servers[1])
                    let report = try await DepotClient(servers: servers, directory: folder, configuration: configuration).sync()
                    #expect(report.release?.number == 1)
                    // The applied report reached the origin, and only then left the queue.
                    #expect(server.requests.snapshot.keys.contains { $0.path == "/v1/reports" })
                    let queue = try Data(contentsOf: folder.appendingPathComponent(".depot/reports.json"))
                    #expect(try JSONDecoder().decode([ReportBatch.Report].self, from: queue).isEmpty)
                }
            }
        }
    }
}
