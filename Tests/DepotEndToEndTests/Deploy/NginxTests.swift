import DepotAPI
import DepotClient
import DepotManifest
import DepotPolicy
import DepotServer
import DepotTestSupport
import Foundation
import Synchronization
import Testing

/// Depot behind Debian's nginx running `deploy/nginx/depot.conf`: what a production client sees.
@Suite("Behind nginx")
struct NginxTests {
    static let auth = ("Authorization", "Bearer \(LiveServer.token)")
    static let text = Fixture.text
    static let noise = Fixture.noise

    /// A publishing Depot with `text.txt` and `noise.bin` published, nginx in front of it.
    static func withStack(_ body: @Sendable (LiveServer, Nginx) async throws -> Void) async throws {
        try await LiveServer.withPublishing { server in
            try await RawHTTPConnection.with(port: server.port) { connection in
                for (path, data) in [("text.txt", text), ("noise.bin", noise)] {
                    let reply = try await connection.request("PUT", "/v1/files/\(path)", headers: [auth], body: Array(data))
                    #expect(reply.status == 201)
                }
            }
            try await Nginx.with(depotPort: server.port) { nginx in
                try await body(server, nginx)
            }
        }
    }

    @Test("conditional, range and gzip answers pass through")
    func passThrough() async throws {
        let etag = "\"\(Fixture.sha256(Self.text))\""
        try await Self.withStack { server, nginx in
            try await RawHTTPConnection.with(port: nginx.port) { connection in
                let notModified = try await connection.request("GET", "/files/text.txt", headers: [("If-None-Match", etag)])
                #expect(notModified.status == 304)
                #expect(notModified.header("ETag") == etag)

                let range = try await connection.request("GET", "/files/noise.bin", headers: [("Range", "bytes=-100")])
                #expect(range.status == 206)
                #expect(range.header("Content-Range") == "bytes 99900-99999/100000")
                #expect(Data(range.body) == Self.noise.suffix(100))

                let unsatisfiable = try await connection.request("GET", "/files/noise.bin", headers: [("Range", "bytes=100000-")])
                #expect(unsatisfiable.status == 416)

                let gzip = try await connection.request("GET", "/files/text.txt", headers: [("Accept-Encoding", "gzip")])
                #expect(gzip.status == 200)
                #expect(gzip.header("Content-Encoding") == "gzip")
                #expect(gzip.header("Vary") == "Accept-Encoding")
                #expect(try Fixture.gunzip(gzip.body) == Self.text)

                let failed = try await connection.request("GET", "/files/text.txt", headers: [("If-Match", "\"stale\"")])
                #expect(failed.status == 412)
            }
        }
    }

    @Test("the dashboard and its admin API need credentials through the shipped site, under the default configuration")
    func dashboardBehindNginx() async throws {
        var configuration = ServerConfiguration()
        configuration.dashboard.enabled = true
        try await LiveServer.withPublishing(configuration: configuration) { server in
            try await Nginx.with(depotPort: server.port) { nginx in
                try await RawHTTPConnection.with(port: nginx.port) { connection in
                    for path in ["/v1/admin/overview", "/dashboard/"] {
                        let anonymous = try await connection.request("GET", path)
                        #expect(anonymous.status == 401, "\(path) through nginx, no credentials")
                        #expect(anonymous.header("Cache-Control") == "no-store")
                        let signed = try await connection.request("GET", path, headers: [Self.auth])
                        #expect(signed.status == 200, "\(path) through nginx, with a token")
                        #expect(signed.header("Cache-Control") == "no-store")
                    }
                }
            }
            // Straight from this machine, the allow-list still lets it read.
            try await RawHTTPConnection.with(port: server.port) { connection in
                let local = try await connection.request("GET", "/v1/admin/overview")
                #expect(local.status == 200)
            }
        }
    }

    @Test("a publish streams through nginx")
    func streamedPublish() async throws {
        let large = Fixture.pseudoRandom(count: 8 << 20, seed: 41)
        try await Self.withStack { server, nginx in
            try await RawHTTPConnection.with(port: nginx.port) { connection in
                let reply = try await connection.request("PUT", "/v1/files/large.bin", headers: [Self.auth], body: Array(large))
                #expect(reply.status == 201)
                #expect(try reply.decoded(PublishReply.self).sha256 == Fixture.sha256(large))
                let unauthorized = try await connection.request("PUT", "/v1/files/x.bin", body: Array("x".utf8))
                #expect(unauthorized.status == 401)
                #expect(unauthorized.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            }
            let served = try await RawHTTPConnection.with(port: server.port) { try await $0.request("GET", "/files/large.bin").body }
            #expect(Data(served) == large)
        }
    }

    @Test("a full client sync through nginx, and a second sync that costs one 304, answered by nginx's micro-cache")
    func clientSync() async throws {
        try await Self.withStack { server, nginx in
            try await withTemporaryDirectory { folder in
                let client = DepotClient(server: URL(string: nginx.url("/"))!, directory: folder)
                let first = try await client.sync()
                #expect(first.failedCount == 0)
                #expect(try Data(contentsOf: folder.appendingPathComponent("text.txt")) == Self.text)
                #expect(try Data(contentsOf: folder.appendingPathComponent("noise.bin")) == Self.noise)
                let before = server.requests.total()
                let second = try await client.sync()
                #expect(second.channelNotModified)
                #expect(server.requests.total() - before <= 1, "the channel poll reaches Depot at most once a second")
            }
        }
    }

    @Test("200 clients polling the channel through nginx for 10 s cost Depot about one request a second")
    func channelMicroCache() async throws {
        try await Self.withStack { server, nginx in
            let etag = try await RawHTTPConnection.with(port: nginx.port) { try await $0.request("GET", "/channels/stable").header("ETag") }
            let before = server.requests.total(pathPrefix: "/channels/")
            let started = ContinuousClock.now
            let answers = try await withThrowingTaskGroup(of: [Int: Int].self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        try await RawHTTPConnection.with(port: nginx.port) { connection in
                            var statuses: [Int: Int] = [:]
                            // At least 10 s and 5 polls each: a loaded machine polls less often.
                            while ContinuousClock.now - started < .seconds(10) || statuses.values.reduce(0, +) < 5 {
                                let reply = try await connection.request("GET", "/channels/stable", headers: [("If-None-Match", etag ?? "")])
                                statuses[reply.status, default: 0] += 1
                                try await Task.sleep(for: .milliseconds(50))
                            }
                            return statuses
                        }
                    }
                }
                return try await group.reduce(into: [Int: Int]()) { total, part in total.merge(part, uniquingKeysWith: +) }
            }
            // nginx's cache is valid for a second of its clock, which is this one: the origin's
            // share is judged against the seconds the polls took, however long a loaded machine
            // made them.
            let seconds = Int((ContinuousClock.now - started).components.seconds) + 1
            let origin = server.requests.total(pathPrefix: "/channels/") - before
            let polls = answers.values.reduce(0, +)
            #expect(polls >= 1000, "\(polls) polls: enough that most must have come from the cache")
            #expect(answers.keys.sorted() == [304], "every poll of an unchanged channel is a 304: \(answers)")
            #expect(origin <= seconds + 3, "\(origin) of \(polls) polls reached Depot in \(seconds) s")

            // A channel move reaches clients through the cache within about a second.
            try await RawHTTPConnection.with(port: server.port) { connection in
                let reply = try await connection.request("PUT", "/v1/files/new.txt", headers: [Self.auth], body: Array("new".utf8))
                #expect(reply.status == 201)
            }
            try await Task.sleep(for: .milliseconds(2500))
            let moved = try await RawHTTPConnection.with(port: nginx.port) {
                try await $0.request("GET", "/channels/stable", headers: [("If-None-Match", etag ?? "")])
            }
            #expect(moved.status == 200 && moved.header("ETag") != etag)
        }
    }

    @Test(
        "500 installs polling through nginx during a rollout that moves from 10% to 50% reach Depot only when nginx's copy expired, once a cache period (nginx answers the rest), and land on their sides; reports pass uncached"
    )
    func rolloutThroughNginx() async throws {
        // The rollout's time is the test's: it moves to 50% when the test says, and no further.
        let clock = TestClock()
        var configuration = ServerConfiguration()
        configuration.rollouts = RolloutConfiguration(tickInterval: .milliseconds(100), clock: { clock.now })
        try await LiveServer.withPublishing(configuration: configuration) { server in
            let send = { (method: String, path: String, body: [UInt8]?) in
                try await RawHTTPConnection.with(port: server.port) { try await $0.request(method, path, headers: [Self.auth], body: body) }
            }
            #expect(try await send("PUT", "/v1/files/a.txt", Array("one".utf8)).status == 201)
            #expect(try await send("PUT", "/v1/files/a.txt", Array("two".utf8)).status == 201)
            #expect(try await send("POST", "/v1/channels/stable/rollback", nil).status == 200)
            let start = RolloutRequest(release: "2", steps: [10, 50, 100], everySeconds: 3600, maxFailureRate: 0.02, minReports: 0)
            #expect(try await send("POST", "/v1/channels/stable/rollout", Array(try JSONEncoder().encode(start))).status == 201)

            try await Nginx.with(depotPort: server.port) { nginx in
                let before = server.requests.total(pathPrefix: "/channels/")
                let started = ContinuousClock.now
                // 100 connections, 5 installs each: each install polls with its own ETag every
                // 100 ms and takes its side from the document it holds, as DepotClient does.
                // The serial of the 50% document, once Depot serves it: each install polls for
                // at least 5 s and until it holds that document (a loaded machine is slow).
                let target = TargetSerial()
                let installs = try await withThrowingTaskGroup(of: [(InstallID, String, movedBack: Bool)].self) { group in
                    group.addTask {
                        try await Task.sleep(for: .milliseconds(2500))
                        clock.advance(by: 3600)
                        while true {
                            let document = try await RawHTTPConnection.with(port: server.port) { try await $0.request("GET", "/channels/stable") }
                                .decoded(ChannelDocument.self)
                            target.direct.withLock { $0 += 1 }
                            if document.rollout?.percent == 50 {
                                target.serial.withLock { $0 = document.serial }
                                return []
                            }
                            try await Task.sleep(for: .milliseconds(50))
                        }
                    }
                    for _ in 0..<100 {
                        group.addTask {
                            try await RawHTTPConnection.with(port: nginx.port) { connection in
                                var installs = (0..<5).map { _ in
                                    (id: InstallID.random(), etag: "", document: ChannelDocument?.none, holding: "", movedBack: false)
                                }
                                func done() -> Bool {
                                    let serial = target.serial.withLock { $0 }
                                    return ContinuousClock.now - started >= .seconds(5)
                                        && installs.allSatisfy { ($0.document?.serial ?? 0) >= serial }
                                }
                                while !done(), ContinuousClock.now - started < .seconds(60) {
                                    for index in installs.indices {
                                        let reply = try await connection.request(
                                            "GET",
                                            "/channels/stable",
                                            headers: [("If-None-Match", installs[index].etag)]
                                        )
                                        target.answered(reply)
                                        if reply.status == 200 {
                                            installs[index].document = try reply.decoded(ChannelDocument.self)
                                            installs[index].etag = reply.header("ETag") ?? ""
                                        }
                                        guard let document = installs[index].document else { continue }
                                        let side = try RolloutSide.decide(
                                            document,
                                            bucket: installs[index].id.bucket(salt:),
                                            holding: installs[index].holding
                                        )
                                        if installs[index].holding == document.rollout?.release, side.release != installs[index].holding {
                                            installs[index].movedBack = true
                                        }
                                        installs[index].holding = side.release
                                    }
                                    try await Task.sleep(for: .milliseconds(100))
                                }
                                return installs.map { ($0.id, $0.holding, $0.movedBack) }
                            }
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                // Nginx answers the polls from its cache: judged by what nginx says of each poll
                // (the shipped X-Cache-Status), not by how many polls a loaded machine made in a
                // second. Every poll that reached Depot is one nginx fetched (MISS: no copy yet;
                // EXPIRED: its copy had expired), the rest it answered from its copy (HIT, or
                // UPDATING while one poll refreshes it), and a copy is refreshed once a cache
                // period: no two refreshes in one second of nginx's own clock (its Date header).
                let origin = server.requests.total(pathPrefix: "/channels/") - before - target.direct.withLock { $0 }
                let (statuses, refreshed) = (target.statuses.withLock { $0 }, target.refreshed.withLock { $0 })
                let fetched = statuses["MISS", default: 0] + statuses["EXPIRED", default: 0]
                let fromCache = statuses["HIT", default: 0] + statuses["UPDATING", default: 0]
                #expect(Set(statuses.keys).isSubset(of: ["MISS", "EXPIRED", "HIT", "UPDATING"]), "\(statuses)")
                #expect(origin == fetched, "\(origin) polls reached Depot, nginx fetched \(fetched): \(statuses)")
                #expect(Set(refreshed).count == refreshed.count, "a copy refreshed twice in one second: \(refreshed.sorted())")
                #expect(fromCache > fetched, "\(statuses)")

                let document = try await RawHTTPConnection.with(port: server.port) { try await $0.request("GET", "/channels/stable") }
                    .decoded(ChannelDocument.self)
                let rollout = try #require(document.rollout)
                #expect(rollout.percent == 50, "the rollout moved from 10% to 50% meanwhile")
                #expect(installs.count == 500 && installs.allSatisfy { !$0.movedBack })
                for (id, holding, _) in installs {
                    #expect(holding == (id.bucket(salt: rollout.salt) < 50 ? rollout.release : document.release))
                }

                // Reports go through to Depot every time.
                let reportsBefore = server.requests.total(pathPrefix: "/v1/reports")
                let install = InstallID.random()
                let batch = ReportBatch(reports: [
                    .init(release: rollout.release, install: install.reportHash(release: rollout.release), kind: "applied")
                ])
                for _ in 0..<2 {
                    let reply = try await RawHTTPConnection.with(port: nginx.port) {
                        try await $0.request(
                            "POST",
                            "/v1/reports",
                            headers: [("Content-Type", "application/json")],
                            body: Array(try JSONEncoder().encode(batch))
                        )
                    }
                    #expect(reply.status == 202)
                }
                #expect(server.requests.total(pathPrefix: "/v1/reports") - reportsBefore == 2)
            }
        }
    }

    /// What the installs of ``rolloutThroughNginx()`` share: the serial of the 50% document,
    /// how many polls went to Depot directly (to find it), the X-Cache-Status nginx gave the
    /// polls through it, and the Date of each poll that refreshed an expired copy.
    final class TargetSerial: Sendable {
        let serial = Mutex<Int64>(.max)
        let direct = Mutex(0)
        let statuses = Mutex<[String: Int]>([:])
        let refreshed = Mutex<[String]>([])

        /// Counts a poll nginx answered.
        func answered(_ reply: RawHTTPResponse) {
            let status = reply.header("X-Cache-Status") ?? "none"
            statuses.withLock { $0[status, default: 0] += 1 }
            if status == "EXPIRED" { refreshed.withLock { $0.append(reply.header("Date") ?? "") } }
        }
    }

    @Test("a second fetch of a blob is served from nginx's cache without reaching Depot")
    func blobCache() async throws {
        let sha = Fixture.sha256(Self.noise)
        try await Self.withStack { server, nginx in
            try await RawHTTPConnection.with(port: nginx.port) { connection in
                let first = try await connection.request("GET", "/blobs/\(sha)")
                #expect(first.status == 200)
                #expect(first.header("X-Cache-Status") == "MISS")
                let second = try await connection.request("GET", "/blobs/\(sha)")
                #expect(second.status == 200)
                #expect(second.header("X-Cache-Status") == "HIT")
                #expect(Data(second.body) == Self.noise)
                #expect(second.header("Cache-Control") == "public, max-age=31536000, immutable")
                let range = try await connection.request("GET", "/blobs/\(sha)", headers: [("Range", "bytes=10-19")])
                #expect(range.status == 206)
                #expect(Data(range.body) == Self.noise.subdata(in: 10..<20))
            }
            #expect(server.requests.total(pathPrefix: "/blobs/\(sha)") == 1)
        }
    }
}

extension NginxTests {
    /// Where nginx answers from its cache instead of passing the request to Depot, its answers
    /// differ from Depot's in places. This test records them, so a change in nginx or in the
    /// config shows up here.
    @Test("answers nginx gives from its cache, documented")
    func cachedAnswers() async throws {
        let sha = Fixture.sha256(Self.noise)
        try await Self.withStack { server, nginx in
            try await RawHTTPConnection.with(port: nginx.port) { connection in
                _ = try await connection.request("GET", "/blobs/\(sha)")  // now cached
                // Same as Depot: a matching If-None-Match is a 304.
                let notModified = try await connection.request("GET", "/blobs/\(sha)", headers: [("If-None-Match", "\"\(sha)\"")])
                #expect(notModified.status == 304)
                #expect(notModified.header("X-Cache-Status") == "HIT")
                // Same as Depot: several ranges become multipart/byteranges.
                let multipart = try await connection.request("GET", "/blobs/\(sha)", headers: [("Range", "bytes=0-9,20-29")])
                #expect(multipart.status == 206)
                #expect(multipart.header("Content-Type")?.hasPrefix("multipart/byteranges") == true)
                // Differs: nginx honours Range on HEAD (206); Depot answers 200, as RFC 9110 §14.2 asks.
                let headRange = try await connection.request("HEAD", "/blobs/\(sha)", headers: [("Range", "bytes=0-9")])
                #expect(headRange.status == 206)
                let depotHeadRange = try await RawHTTPConnection.with(port: server.port) {
                    try await $0.request("HEAD", "/blobs/\(sha)", headers: [("Range", "bytes=0-9")]).status
                }
                #expect(depotHeadRange == 200)
                // Differs: with a matching If-None-Match and an older If-Modified-Since, nginx sends
                // 200 where Depot sends 304 (RFC 9110 §13.1.3: IMS is ignored beside INM).
                let both = try await connection.request(
                    "GET",
                    "/blobs/\(sha)",
                    headers: [("If-None-Match", "\"\(sha)\""), ("If-Modified-Since", "Thu, 01 Jan 1970 00:00:01 GMT")]
                )
                let depotBoth = try await RawHTTPConnection.with(port: server.port) {
                    try await $0.request(
                        "GET",
                        "/blobs/\(sha)",
                        headers: [("If-None-Match", "\"\(sha)\""), ("If-Modified-Since", "Thu, 01 Jan 1970 00:00:01 GMT")]
                    ).status
                }
                #expect(both.status == 200)
                #expect(depotBoth == 304)
            }
            #expect(server.requests.total(pathPrefix: "/blobs/\(sha)") == 3, "one fill, and the two direct requests")
        }
    }
}

/// `depot sync` behind the shipped nginx site, in front of `depot serve`: a cold sync gets its
/// small files by pack (`PackSyncTests`), a changed copy is rebuilt from blocks
/// (`DeltaReachTests`). Their subject is nginx: a real one, on a socket.
@Suite("Syncs through the shipped nginx site")
struct NginxSyncTests {
    typealias Packs = PackTree
    typealias Deltas = DeltaTable

    @Test("behind the shipped nginx site, a cold sync gets every small file by pack")
    func packsThroughNginx() async throws {
        try await DepotProcess.withServer { root, server in
            try Packs.writeTree(root)
            try await InProcessCLI.publish(["site"], to: server, in: root)
            let port = Int(server.split(separator: ":").last!)!
            try await Nginx.with(depotPort: port) { nginx in
                for folder in ["first", "cached"] {
                    let sync = try await InProcessCLI.run(["sync", "--server", nginx.url(""), "--dir", folder, "--json"], token: nil, in: root)
                    #expect(sync.status == 0, "\(sync.errors)")
                    let report = try JSONDecoder().decode(SyncReport.self, from: Data(sync.output.utf8))
                    #expect(report.files.filter { $0.outcome == .packed }.count == Packs.files, "\(folder)")
                }
            }
            #expect(
                try Data(contentsOf: root.appendingPathComponent("cached/7/799.bin"))
                    == Data(contentsOf: root.appendingPathComponent("site/7/799.bin"))
            )
        }
    }

    @Test("through the shipped nginx site, a changed copy is rebuilt from blocks and its bytes reported")
    func blocksThroughNginx() async throws {
        try await DepotProcess.withServer(environment: Deltas.environment) { root, server in
            let (outcome, bytes) = try await Deltas.syncAfterChange(root: root, server: server, change: Deltas.editedByTheApp) { server in
                try await Nginx.with(depotPort: Int(server.split(separator: ":").last!)!) { nginx in try await Deltas.sync(nginx.url(""), root: root)
                }
            }
            #expect(outcome == "blocks")
            #expect(bytes * 4 < Deltas.gzipSize(2), "\(bytes) bytes")
        }
    }
}
