import DepotClient
import DepotTestSupport
import Foundation
import Testing

/// Issue 57, defect 28: health reports go only to the report server (``ReportDestination``),
/// never to a mirror; reports that wait undelivered, and those the queue's bound dropped, are
/// said in `depot sync`'s summary and `--json`. Real `depot serve`, nginx over a static export,
/// and a server that answers 202 to everything.
@Suite("Report server")
struct ReportServerTests {
    typealias Stage = StaticExportTests.Stage

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
        let result = try await DepotCLI.run(
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
}
