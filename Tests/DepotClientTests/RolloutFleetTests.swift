import Crypto
import DepotAPI
import DepotClient
import DepotHTTP
import DepotManifest
import DepotPolicy
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// A simulated fleet of 2,000 installs against a real server (docs/releases.md, "Rollouts"):
/// each install is a random install id and the release it holds, and on every poll runs the
/// client's own code on the signed document the server serves (``ChannelCheck``,
/// ``RolloutSide``, ``InstallID/reportHash(release:)``); real ``DepotClient`` folders sync
/// beside them and must land where the same code says. The server's rollouts run on a test
/// clock, its scheduler ticking every 50 ms of real time.
@Suite("Rollouts across a fleet")
struct RolloutFleetTests {
    static let key = Curve25519.Signing.PrivateKey()
    static let installCount = 2000

    struct Fleet: Sendable {
        var installs: [(id: InstallID, holding: String)]

        init(count: Int, holding: String) {
            installs = (0..<count).map { _ in (InstallID.random(), holding) }
        }

        /// Every install polls `document` and takes its side; returns how many moved back from
        /// the rolled-out release to another.
        mutating func poll(_ document: ChannelDocument) throws -> (sides: [RolloutSide], movedBack: Int) {
            var movedBack = 0
            let sides = try installs.indices.map { index in
                let side = try RolloutSide.decide(document, bucket: installs[index].id.bucket(salt:), holding: installs[index].holding)
                if let rollout = document.rollout, installs[index].holding == rollout.release, side.release != rollout.release { movedBack += 1 }
                installs[index].holding = side.release
                return side
            }
            return (sides, movedBack)
        }

        func share(on release: String) -> Double {
            Double(installs.filter { $0.holding == release }.count) / Double(installs.count)
        }
    }

    static func configuration(_ clock: TestClock) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.publish.tokens = [InProcessServer.token]
        configuration.channels = ChannelSigner(keys: [key])
        configuration.rollouts = RolloutConfiguration(tickInterval: .milliseconds(50), clock: { clock.now })
        configuration.reports.perAddressPerSecond = 1_000_000
        // The whole fleet reports from 127.0.0.1, one network: here it stands for many (the
        // network rules have tests of their own, with forwarded addresses).
        configuration.reports.installsPerNetwork = 1_000_000
        configuration.reports.installsPerStep = 1_000_000
        configuration.reports.gateNetworks = 1
        return configuration
    }

    /// Runs `body` against a server of ``configuration(_:)`` on its test clock, with its data in
    /// a temporary folder.
    static func withServer(
        reportsPerAddressPerSecond: Int = 1_000_000,
        _ body: @Sendable (InProcessServer, TestClock) async throws -> Void
    ) async throws {
        let clock = TestClock()
        var configuration = Self.configuration(clock)
        configuration.reports.perAddressPerSecond = reportsPerAddressPerSecond
        try await withTemporaryDirectory { root in
            let data = root.appendingPathComponent("data")
            try await InProcessServer.withDataDirectory(data, configuration: configuration, from: "127.0.0.1") { server in
                try await body(server, clock)
            }
        }
    }

    static func send(
        _ server: some TestServer,
        _ method: String,
        _ path: String,
        json: (any Encodable)? = nil,
        body raw: [UInt8]? = nil
    ) async throws
        -> RawHTTPResponse
    {
        let body = try json.map { Array(try JSONEncoder().encode($0)) } ?? raw
        return try await server.withConnection { connection in
            try await connection.request(method, path, headers: [("Authorization", "Bearer \(InProcessServer.token)")], body: body)
        }
    }

    /// Release 1 (`a.txt` one) and release 2 (`a.txt` two) made, stable on release 1; their ids.
    static func twoReleases(_ server: some TestServer) async throws -> (one: String, two: String) {
        #expect(try await send(server, "PUT", "/v1/files/a.txt", body: Array("one\n".utf8)).status == 201)
        #expect(try await send(server, "PUT", "/v1/files/a.txt", body: Array("two\n".utf8)).status == 201)
        #expect(try await send(server, "POST", "/v1/channels/stable/rollback").status == 200)
        let releases = try await send(server, "GET", "/v1/releases").decoded(ReleaseList.self).releases
        let id = { (number: Int64) in releases.first { $0.number == number }!.id }
        return (id(1), id(2))
    }

    /// The channel document as served, checked as a client checks it (its expiry by the wall
    /// clock, by which the server signs).
    static func document(_ server: some TestServer) async throws -> ChannelDocument {
        let reply = try await send(server, "GET", "/channels/stable")
        let document = try JSONDecoder().decode(ChannelDocument.self, from: Data(reply.body))
        let now = Int64(Date().timeIntervalSince1970)
        #expect(try ChannelCheck.check(document, channel: "stable", trustedKeys: [key.publicKey], now: now, lastAccepted: nil) == .verified)
        return document
    }

    static func startRollout(_ server: some TestServer, minReports: Int64) async throws -> RolloutInfo {
        let request = RolloutRequest(
            release: "2",
            steps: [10, 50, 100],
            everySeconds: 3600,
            maxFailureRate: 0.02,
            minReports: minReports,
            autoRollback: true
        )
        let reply = try await send(server, "POST", "/v1/channels/stable/rollout", json: request)
        #expect(reply.status == 201, "\(reply.bodyText)")
        return try reply.decoded(RolloutInfo.self)
    }

    static func rollout(_ server: some TestServer) async throws -> RolloutInfo {
        try await send(server, "GET", "/v1/channels/stable/rollout").decoded(RolloutInfo.self)
    }

    /// Waits (real time: the scheduler's ticks) until the rollout satisfies `done`.
    /// The channel document once it shows a move a tick made: the catalog says the move once
    /// the tick's transaction commits, and the documents follow once the tick has made the
    /// new release's document patches. The bound only guards a hang.
    static func document(_ server: some TestServer, once moved: (ChannelDocument) -> Bool) async throws -> ChannelDocument {
        let shown = try await poll(every: .milliseconds(20), for: .seconds(120)) { () async throws -> ChannelDocument? in
            let document = try await document(server)
            return moved(document) ? document : nil
        }
        if let shown { return shown }
        Issue.record("the channel document never showed the move")
        return try await document(server)
    }

    static func waitFor(_ server: some TestServer, _ what: String, _ done: (RolloutInfo) -> Bool) async throws -> RolloutInfo {
        let reached = try await poll(every: .milliseconds(20), for: .seconds(120)) { () async throws -> RolloutInfo? in
            let info = try await rollout(server)
            return done(info) ? info : nil
        }
        if let reached { return reached }
        Issue.record("the rollout never got to \(what): \(try await rollout(server))")
        return try await rollout(server)
    }

    /// Posts the reports of `installs` about `release` in batches of 100, as clients do.
    static func report(_ server: some TestServer, _ installs: [InstallID], release: String, kind: (Int) -> String) async throws {
        let reports = installs.enumerated().map { index, install in
            ReportBatch.Report(release: release, install: install.reportHash(release: release), kind: kind(index))
        }
        for start in stride(from: 0, to: reports.count, by: 100) {
            let reply = try await send(
                server,
                "POST",
                "/v1/reports",
                json: ReportBatch(reports: Array(reports[start..<min(start + 100, reports.count)]))
            )
            #expect(reply.status == 202, "\(reply.bodyText)")
        }
    }

    @Test("a healthy release goes 10% → 50% → 100% on schedule, no install moves back, and a restart between steps changes nothing")
    func healthyRollout() async throws {
        let clock = TestClock()
        try await withTemporaryDirectory { root in
            let data = root.appendingPathComponent("data")
            let configuration = Self.configuration(clock)
            let (two, fleet) = try await InProcessServer.withDataDirectory(data, configuration: configuration, from: "127.0.0.1") { server in
                let (one, two) = try await Self.twoReleases(server)
                var fleet = Fleet(count: Self.installCount, holding: one)
                let started = try await Self.startRollout(server, minReports: 50)
                #expect(started.percent == 10 && started.state == "running")

                var (sides, movedBack) = try fleet.poll(try await Self.document(server))
                #expect((0.08...0.12).contains(fleet.share(on: two)), "\(fleet.share(on: two)) of the fleet at 10%")
                #expect(sides.allSatisfy { !$0.reason.isEmpty } && movedBack == 0)

                // Real clients land on the side the same code gives their install id.
                try await withTemporaryDirectory { folders in
                    for index in 0..<24 {
                        let folder = folders.appendingPathComponent("\(index)")
                        let client = DepotClient(
                            server: URL(string: server.url("/"))!,
                            directory: folder,
                            configuration: .init(trustedKeys: [Self.key.publicKey.rawRepresentation.base64EncodedString()])
                        )
                        let report = try await client.sync()
                        let install = try client.installID()
                        let expected = install.bucket(salt: try #require(try await Self.document(server).rollout).salt) < 10
                        #expect(report.rollout?.side == (expected ? .rolledOut : .outside), "\(report.rollout?.reason ?? "")")
                        #expect(try String(contentsOf: folder.appendingPathComponent("a.txt"), encoding: .utf8) == (expected ? "two\n" : "one\n"))
                        // Asked afterwards, the install holds its side's release.
                        let now = try #require(try client.rolloutSide())
                        #expect(now.side == report.rollout?.side && now.release == report.rollout?.release)
                    }
                }

                // Time is up but too few reports: the step waits.
                clock.advance(by: 3600)
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await Self.rollout(server).percent == 10)
                let rolledOut = fleet.installs.filter { $0.holding == two }.map(\.id)
                try await Self.report(server, rolledOut, release: two) { _ in "applied" }
                let fifty = try await Self.waitFor(server, "50%") { $0.percent == 50 }
                #expect(fifty.reason.contains("the gate held"))
                (_, movedBack) = try fleet.poll(try await Self.document(server, once: { $0.rollout?.percent == 50 }))
                #expect(movedBack == 0)
                #expect((0.46...0.54).contains(fleet.share(on: two)), "\(fleet.share(on: two)) of the fleet at 50%")
                return (two, fleet)
            }

            // A restart between steps: the same step, started at the same time, and no tick
            // advances it twice.
            try await InProcessServer.withDataDirectory(data, configuration: configuration, from: "127.0.0.1") { [fleet] server in
                var fleet = fleet
                let held = try await Self.rollout(server)
                #expect(held.percent == 50 && held.step == 1 && held.state == "running")
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await Self.rollout(server).percent == 50)
                #expect(try await Self.document(server).rollout?.percent == 50)

                try await Self.report(server, fleet.installs.map(\.id), release: two) { _ in "applied" }
                clock.advance(by: 3600)
                let done = try await Self.waitFor(server, "completion") { $0.state == "completed" }
                #expect(done.percent == 100)
                let document = try await Self.document(server, once: { $0.rollout == nil })
                #expect(document.rollout == nil && document.release == two)
                let (_, movedBack) = try fleet.poll(document)
                #expect(movedBack == 0 && fleet.share(on: two) == 1)
            }
        }
    }

    @Test("a release 30% of its installs fail is halted at its first step and rolled back, with no time passing")
    func failingRollout() async throws {
        try await Self.withServer { server, clock in
            let (one, two) = try await Self.twoReleases(server)
            var fleet = Fleet(count: Self.installCount, holding: one)
            _ = try await Self.startRollout(server, minReports: 100)
            _ = try fleet.poll(try await Self.document(server))
            let rolledOut = fleet.installs.filter { $0.holding == two }.map(\.id)
            #expect(rolledOut.count >= 150)
            try await Self.report(server, rolledOut, release: two) { $0 % 10 < 3 ? "failed" : "applied" }
            let ended = try await Self.waitFor(server, "a rollback") { $0.state == "rolled-back" }
            #expect(ended.percent == 10 && ended.reason.contains("the gate failed"), "\(ended.reason)")
            let document = try await Self.document(server, once: { $0.rollout == nil })
            #expect(document.rollout == nil && document.release == one)
            _ = try fleet.poll(document)
            #expect(fleet.share(on: one) == 1, "every install goes back to release 1")
        }
    }

    @Test("a client with reports on reports applied after its switch and healthy when the app says; offline, it keeps them for later")
    func clientReports() async throws {
        try await Self.withServer { server, clock in
            let (_, two) = try await Self.twoReleases(server)
            // Everybody at once, and a gate that will not complete it: every report counts for release 2.
            let request = RolloutRequest(release: "2", steps: [100], everySeconds: 3600, maxFailureRate: 0.5, minReports: 1000)
            #expect(try await Self.send(server, "POST", "/v1/channels/stable/rollout", json: request).status == 201)
            try await withTemporaryDirectory { folder in
                let configuration = DepotClient.Configuration(sendsReports: true)
                let client = DepotClient(server: URL(string: server.url("/"))!, directory: folder, configuration: configuration)
                let quiet = DepotClient(server: URL(string: server.url("/"))!, directory: folder.appendingPathComponent("quiet"))
                _ = try await quiet.sync()
                try await quiet.report(.healthy)
                #expect(
                    !FileManager.default.fileExists(atPath: folder.appendingPathComponent("quiet/.depot/reports.json").path),
                    "reports are off by default"
                )

                let report = try await client.sync()
                #expect(report.release?.id == two)
                _ = try await Self.waitFor(server, "an applied report") { $0.reports.applied == 1 }
                try await client.report(.healthy)
                _ = try await Self.waitFor(server, "a healthy report") { $0.reports.healthy == 1 }

                // The server unreachable: the report waits in .depot/, and the next sync sends it.
                let offline = DepotClient(server: URL(string: "http://127.0.0.1:9/")!, directory: folder, configuration: configuration)
                try await offline.report(.failed(reason: "the app could not open the database"))
                let queued = try Data(contentsOf: folder.appendingPathComponent(".depot/reports.json"))
                #expect(String(decoding: queued, as: UTF8.self).contains("could not open"))
                #expect(
                    !String(decoding: queued, as: UTF8.self).contains(
                        try client.installID().value
                    )
                )
                _ = try await client.sync()
                let info = try await Self.waitFor(server, "the failed report") { $0.reports.failed == 1 }
                #expect(info.reports == ReportTotals(applied: 1, failed: 1, healthy: 1))
                #expect(String(decoding: try Data(contentsOf: folder.appendingPathComponent(".depot/reports.json")), as: UTF8.self) == "[]")
            }
        }
    }

    /// Publishes a.txt with `text` as a release needing `minimum`; its id.
    static func publish(_ server: some TestServer, _ text: String, minimum: String?, critical: Bool = false) async throws -> String {
        let commit = CommitRequest(critical: critical, minimumClientVersion: minimum)
        let reply = try await server.withConnection { try await $0.commit([(path: "a.txt", data: Data(text.utf8))], commit) }
        #expect(reply.status == 201, "\(reply.bodyText)")
        return try #require(try reply.decoded(CommitReply.self).release).id
    }

    @Test("critical releases and minimum client versions: signed, exposed, and older apps keep the newest release they can use")
    func compatibility() async throws {
        try await Self.withServer { server, clock in
            func publish(_ text: String, minimum: String?, critical: Bool = false) async throws -> String {
                try await Self.publish(server, text, minimum: minimum, critical: critical)
            }
            let one = try await publish("any\n", minimum: nil)
            let two = try await publish("two\n", minimum: "2.0")
            let three = try await publish("three\n", minimum: "3.0", critical: true)
            let bad = try await Self.send(server, "POST", "/v1/releases", json: CommitRequest(files: [], minimumClientVersion: "3.x"))
            #expect(bad.status == 400)

            let document = try await Self.document(server)
            #expect(document.release == three && document.critical == true && document.minimumClientVersion == "3.0")
            #expect(document.fallbacks?.map(\.number) == [2, 1], "release 2 for 2.x apps, release 1 for any")
            try await withTemporaryDirectory { folder in
                let cases: [(version: String, release: String, text: String, critical: Bool)] = [
                    ("3.1", three, "three\n", true), ("2.5", two, "two\n", false), ("1.0", one, "any\n", false),
                ]
                for (version, release, text, critical) in cases {
                    let client = DepotClient(
                        server: URL(string: server.url("/"))!,
                        directory: folder.appendingPathComponent(version),
                        configuration: .init(
                            trustedKeys: [Self.key.publicKey.rawRepresentation.base64EncodedString()],
                            clientVersion: ClientVersion(version)
                        )
                    )
                    let report = try await client.sync()
                    #expect(report.release?.id == release)
                    #expect(try String(contentsOf: folder.appendingPathComponent("\(version)/a.txt"), encoding: .utf8) == text, "app \(version)")
                    #expect(report.rollout?.critical == critical && report.signature == .verified, "app \(version): \(report.rollout?.reason ?? "")")
                }
            }
        }
    }

    @Test("an app upgraded past a fallback takes the release it can now use, though the poll is a 304; the report names what it holds")
    func upgradeLeavesFallback() async throws {
        try await Self.withServer { server, _ in
            let seven = try await Self.publish(server, "seven\n", minimum: nil)
            let eight = try await Self.publish(server, "eight\n", minimum: "3.0", critical: true)
            try await withTemporaryDirectory { folder in
                func client(_ version: String) -> DepotClient {
                    let trusted = [Self.key.publicKey.rawRepresentation.base64EncodedString()]
                    return DepotClient(
                        server: URL(string: server.url("/"))!,
                        directory: folder,
                        configuration: .init(trustedKeys: trusted, clientVersion: ClientVersion(version))
                    )
                }
                let old = try await client("2.5").sync()
                #expect(old.release?.id == seven && old.rollout?.side == .fallback)
                #expect(!old.critical, "release 7, the fallback, is not critical")
                let held = try await client("2.5").sync()
                #expect(held.channelNotModified && held.release?.id == seven && !held.critical)

                let upgraded = try await client("3.1").sync()
                #expect(upgraded.channelNotModified, "the channel document has not changed")
                #expect(upgraded.release?.id == eight && upgraded.critical, "\(upgraded.rollout?.reason ?? "")")
                #expect(try String(contentsOf: folder.appendingPathComponent("a.txt"), encoding: .utf8) == "eight\n")
                let check = try await client("3.1").check()
                #expect(check.isUpToDate && check.release?.id == eight && check.critical)

                // Back to an app too old: the fallback again, and not critical.
                let downgraded = try await client("2.5").sync()
                #expect(downgraded.release?.id == seven && !downgraded.critical)
            }
        }
    }

    @Test("bad reports are refused whole and move nothing; repeats, unknown releases and floods leave the counters right")
    func badReports() async throws {
        try await Self.withServer(reportsPerAddressPerSecond: 50) { server, clock in
            let (_, two) = try await Self.twoReleases(server)
            _ = try await Self.startRollout(server, minReports: 1)
            let install = InstallID.random()
            let good = ReportBatch.Report(release: two, install: install.reportHash(release: two), kind: "failed")
            let bad: [(String, [UInt8])] = [
                ("not JSON", Array("reports".utf8)),
                ("no reports key", Array(#"{"report": []}"#.utf8)),
                (
                    "an unknown kind",
                    try Array(JSONEncoder().encode(ReportBatch(reports: [good, .init(release: two, install: good.install, kind: "crashed")])))
                ),
                (
                    "an install that is no hash",
                    try Array(JSONEncoder().encode(ReportBatch(reports: [.init(release: two, install: "me", kind: "failed")])))
                ),
                (
                    "a release that is no id",
                    try Array(JSONEncoder().encode(ReportBatch(reports: [.init(release: "2", install: good.install, kind: "failed")])))
                ),
                (
                    "a reason over 200 bytes",
                    try Array(
                        JSONEncoder().encode(
                            ReportBatch(reports: [
                                .init(release: two, install: good.install, kind: "failed", reason: String(repeating: "x", count: 201))
                            ])
                        )
                    )
                ),
            ]
            for (name, body) in bad {
                #expect(try await Self.send(server, "POST", "/v1/reports", body: body).status == 400, "\(name)")
            }
            let tooMany = ReportBatch(reports: Array(repeating: good, count: 101))
            #expect(try await Self.send(server, "POST", "/v1/reports", json: tooMany).status == 413)
            try await Task.sleep(for: .milliseconds(300))
            var info = try await Self.rollout(server)
            #expect(info.state == "running" && info.reports == ReportTotals(applied: 0, failed: 0, healthy: 0), "bad input counted nothing")

            // One install reporting 1,000 times, and reports about an unknown release: one count.
            let unknown = String(repeating: "0", count: 64)
            let healthy = ReportBatch.Report(release: two, install: install.reportHash(release: two), kind: "applied")
            for _ in 0..<10 {
                let batch = ReportBatch(
                    reports: Array(repeating: healthy, count: 99) + [.init(release: unknown, install: healthy.install, kind: "failed")]
                )
                #expect(try await Self.send(server, "POST", "/v1/reports", json: batch).status == 202)
            }
            // A flood from one address, judged by the server's clock (the test's): a new second
            // admits 50 requests, from 10 connections at once, and refuses the 51st; the next
            // second admits again. How fast the machine answers plays no part.
            let body = Array(try JSONEncoder().encode(ReportBatch(reports: [healthy])))
            clock.advance(by: 1)
            let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        try await server.withConnection { connection in
                            var statuses: [Int] = []
                            for _ in 0..<5 { statuses.append(try await connection.request("POST", "/v1/reports", body: body).status) }
                            return statuses
                        }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(statuses.count == 50 && statuses.allSatisfy { $0 == 202 }, "\(statuses)")
            let refused = try await Self.send(server, "POST", "/v1/reports", body: body)
            #expect(refused.status == 429 && refused.header("Retry-After") == "1")
            clock.advance(by: 1)
            #expect(try await Self.send(server, "POST", "/v1/reports", body: body).status == 202)
            info = try await Self.waitFor(server, "one counted report") { $0.reports.applied == 1 }
            #expect(info.reports == ReportTotals(applied: 1, failed: 0, healthy: 0))
            #expect(info.state == "running" && info.percent == 10)
        }
    }

    /// Posts `reports` as from `address`, through the server's trusted proxy (127.0.0.1).
    static func report(_ server: some TestServer, _ reports: [ReportBatch.Report], from address: String) async throws {
        for start in stride(from: 0, to: reports.count, by: 100) {
            let body = Array(try JSONEncoder().encode(ReportBatch(reports: Array(reports[start..<min(start + 100, reports.count)]))))
            let reply = try await server.withConnection { connection in
                try await connection.request("POST", "/v1/reports", headers: [("X-Forwarded-For", address)], body: body)
            }
            #expect(reply.status == 202, "\(reply.bodyText)")
        }
    }

    /// `count` failed reports about `release` from new installs, on `channel`.
    static func failures(_ count: Int, release: String, channel: String? = nil) -> [ReportBatch.Report] {
        (0..<count).map { _ in
            let install = InstallID.random()
            return ReportBatch.Report(release: release, install: install.reportHash(release: release), kind: "failed", channel: channel)
        }
    }

    @Test("one address inventing 200 failing installs moves no rollout; failures from three networks roll it back")
    func forgedFailures() async throws {
        let clock = TestClock()
        var configuration = ServerConfiguration()
        configuration.publish.tokens = [InProcessServer.token]
        configuration.channels = ChannelSigner(keys: [Self.key])
        configuration.rollouts = RolloutConfiguration(tickInterval: .milliseconds(50), clock: { clock.now })
        configuration.trustedProxies = ["127.0.0.1"]
        try await withTemporaryDirectory { root in
            let data = root.appendingPathComponent("data")
            try await InProcessServer.withDataDirectory(data, configuration: configuration, from: "127.0.0.1") { server in
                let (_, two) = try await Self.twoReleases(server)
                _ = try await Self.startRollout(server, minReports: 3)
                // The attack as found: two requests of 100 invented failing installs, one address.
                try await Self.report(server, Self.failures(200, release: two), from: "203.0.113.7")
                // Counted (5 of them: one network's share), and weighed by ticks, moving nothing.
                let counted = try await Self.waitFor(server, "the network's share counted") { $0.reports.failed == 5 }
                #expect(counted.state == "running", "\(counted.reason)")
                clock.advance(by: 3600)
                try await Task.sleep(for: .milliseconds(300))
                let held = try await Self.rollout(server)
                #expect(held.state == "running" && held.percent == 10, "\(held.reason)")
                // Installs of two more networks fail too: the gate's three networks.
                try await Self.report(server, Self.failures(2, release: two), from: "198.51.100.20")
                try await Self.report(server, Self.failures(2, release: two), from: "2001:db8:1:2::9")
                let rolledBack = try await Self.waitFor(server, "rolled back") { $0.state == "rolled-back" }
                #expect(rolledBack.reason.contains("from 3 networks"), "\(rolledBack.reason)")
            }
        }
    }

    @Test("two channels rolling out one release: one channel's failures do not roll back the other")
    func failuresStayInTheirChannel() async throws {
        let clock = TestClock()
        var configuration = Self.configuration(clock)
        configuration.trustedProxies = ["127.0.0.1"]
        try await withTemporaryDirectory { root in
            let data = root.appendingPathComponent("data")
            try await InProcessServer.withDataDirectory(data, configuration: configuration, from: "127.0.0.1") { server in
                let (_, two) = try await Self.twoReleases(server)
                _ = try await Self.startRollout(server, minReports: 3)
                #expect(try await Self.send(server, "POST", "/v1/channels/edge/promote", json: ["release": "1"]).status == 200)
                let request = RolloutRequest(
                    release: "2",
                    steps: [10, 50, 100],
                    everySeconds: 3600,
                    maxFailureRate: 0.02,
                    minReports: 3,
                    autoRollback: true
                )
                #expect(try await Self.send(server, "POST", "/v1/channels/edge/rollout", json: request).status == 201)
                try await Self.report(server, Self.failures(10, release: two, channel: "stable"), from: "203.0.113.7")
                _ = try await Self.waitFor(server, "stable rolled back") { $0.state == "rolled-back" }
                clock.advance(by: 1)
                try await Task.sleep(for: .milliseconds(300))
                let edge = try await Self.send(server, "GET", "/v1/channels/edge/rollout").decoded(RolloutInfo.self)
                #expect(edge.state == "running" && edge.reports.failed == 0, "\(edge.reason)")
            }
        }
    }
}
