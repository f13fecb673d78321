import DepotAPI
import DepotClient
import DepotHTTP
import DepotManifest
import DepotPolicy
import Foundation
import NIOCore
import NIOHTTP1

/// One of the fleet's workers: a keep-alive connection to each server (and the report
/// server), and the installs the ``Schedule`` gives it, polled one after another as each
/// device would: the channel document with `If-None-Match`, the side ``RolloutSide`` gives
/// it, the release and changed pages, the objects the client's ``ReleasePlan`` names, the
/// reports, and ``Failover`` to the next server when one fails.
final class Worker {
    let fleet: Fleet
    /// The event loop its connections are on (and its task runs on: ``EventLoopExecutor``).
    let loop: any EventLoop
    /// One per server, then the report server's.
    private var connections: [HTTPConnection?]

    init(fleet: Fleet, loop: any EventLoop) {
        self.fleet = fleet
        self.loop = loop
        connections = Array(repeating: nil, count: fleet.settings.servers.count + 1)
    }

    /// Polls what is due until the task is cancelled.
    func run() async {
        var waiting = false
        while !Task.isCancelled {
            switch fleet.schedule.next(busy: fleet.table.busy, wasWaiting: waiting) {
            case .poll(let index):
                waiting = false
                await poll(index)
            case .wait(let seconds):
                waiting = true
                try? await Task.sleep(for: .seconds(seconds))
            }
        }
        for connection in connections { await connection?.close() }
    }

    // MARK: - A poll

    /// Install `index`'s poll: each server in turn until one answers, then its reports.
    func poll(_ index: Int) async {
        let table = fleet.table
        defer { fleet.schedule.done(index, busy: table.busy) }
        let address = NetworkMix.address(network: table.network[index], install: index)
        let heldBefore = table.held[index]
        let servers = fleet.settings.servers
        let attempt: (Int, Bool) async throws -> Failover.Attempt<Void> = { server, _ in
            try await self.sync(index, server: server, address: address)
            return .done(())
        }
        _ = try? await Failover.run(Array(servers.indices), name: { servers[$0].description }, attempt)
        // Read after the poll: the poll that first saw the rollback counts as one since it.
        let rolledBack = fleet.checked.rolledBack(heldBefore) != nil
        if rolledBack, table.pollsSinceRollback[index] < 255 { table.pollsSinceRollback[index] += 1 }
        if rolledBack, table.held[index] != heldBefore {
            let polls = table.pollsSinceRollback[index]
            fleet.counters.update { $0.backAfterRollback[polls <= 2 ? String(max(polls, 1)) : ">2", default: 0] += 1 }
            table.pollsSinceRollback[index] = 0
        }
        if !table.pending[index].isEmpty { await sendReports(index, address: address) }
    }

    /// One server's attempt: the channel document, and a move when it names another release.
    private func sync(_ index: Int, server: Int, address: String) async throws {
        let table = fleet.table
        let checked = fleet.checked
        let channel = try TreeObject.channel(fleet.settings.channel)
        let tag = checked.tagText(table.entityTag[index])
        let answer = try await get(channel, server: server, kind: .poll, ifNoneMatch: tag, address: address)
        if answer.status == 304, tag != nil {
            table.server[index] = UInt8(server)
            return
        }
        guard answer.status == 200, let body = answer.body else { throw TreeAnswer(answer).refusal(of: channel) }
        let now = Int64(Date().timeIntervalSince1970)
        let entry = try await checked.channel(body, floor: table.floor[index], now: now, simulated: fleet.schedule.simulated()) {
            try await self.checkChannel(answer, server: server, now: now, lastAccepted: $0)
        }
        let held = table.held[index]
        let interned = checked.interned
        let version = fleet.settings.clientVersions[Int(table.version[index])].version
        let side: RolloutSide
        do {
            side = try RolloutSide.decide(
                entry.document,
                bucket: { table.id(index).bucket(salt: $0) },
                holding: held == 0 ? nil : interned.releases[Int(held)].id,
                clientVersion: version
            )
        } catch {
            throw SyncError(.incompatible, error.message)
        }
        let target = checked.release(side.release, number: side.number)
        if target != held { try await move(index, from: held, to: target, server: server, address: address) }
        table.entityTag[index] = checked.tag(answer.entityTag)
        table.floor[index] = entry.floor
        table.server[index] = UInt8(server)
    }

    /// Fetches what install `index` needs to go from release `from` to `to`, checks every
    /// byte, and holds `to`, with its reports queued.
    private func move(_ index: Int, from: UInt16, to: UInt16, server: Int, address: String) async throws {
        let checked = fleet.checked
        let table = fleet.table
        let interned = checked.interned
        let after = try await fetchRelease(interned.releases[Int(to)].id, index: to, server: server, address: address)
        let pages = ReleasePlan.changedPages(from: checked.releaseDocument(from), to: after)
        try await fetchPages(pages.after, server: server, address: address)
        let transition = try checked.transition(from: from, to: to) { try Self.transition(pages, checked: checked) }
        for ways in transition.files { try await fetch(ways, server: server, address: address) }
        // Switched: the release is held.
        let number = interned.releases[Int(to)].number
        if number < interned.releases[Int(from)].number, from != 0, checked.rolledBack(from) == nil {
            fleet.counters.update { $0.lostRelease += 1 }
        }
        table.held[index] = to
        if number < 64 { table.took[index] |= 1 << UInt64(number) }
        let bad =
            fleet.settings.bad.map { $0.number == number && fleet.settings.clientVersions[Int(table.version[index])].version == $0.version } ?? false
        var dropped = table.pending[index].add(.applied, release: to)
        dropped += table.pending[index].add(bad ? .failed : .healthy, release: to)
        if dropped > 0 { fleet.counters.update { $0.reportsDropped += dropped } }
    }

    /// Fetches one file the first of its `ways` that works, as the client's stager does: a way
    /// that fails (a patch the server will not make, bytes that are not the ones named) gives
    /// way to the next; the last one's failure is the sync's.
    private func fetch(_ ways: [CheckedOnce.Transition.Way], server: Int, address: String) async throws {
        for (position, way) in ways.enumerated() {
            let isLast = position == ways.count - 1
            let answer = try await get(way.object, server: server, kind: .object, address: address)
            guard answer.status == 200, let body = answer.body else {
                if isLast { throw TreeAnswer(answer).refusal(of: way.object) }
                continue
            }
            guard fleet.checked.checkObject(way.object, server: server, sha256: way.sha256, body: body) else {
                fleet.counters.update { $0.refused += 1 }
                if isLast { throw SyncError(.corrupt, "\(name(server))\(way.object.url) is not the bytes the release names") }
                continue
            }
            return
        }
    }

    /// The objects of a move, from the changed pages: for each file the plan fetches, the
    /// client's ways that need no local bytes (a listed patch, a patch the server makes, the
    /// smallest whole variant); a block rebuild reads the local file, which a simulated install
    /// does not have.
    static func transition(_ pages: (before: [String], after: [String]), checked: CheckedOnce) throws -> CheckedOnce.Transition {
        func page(_ sha256: String) throws -> ReleasePage {
            guard let page = checked.page(sha256) else { throw SyncError(.corrupt, "page \(sha256) was not kept") }
            return page
        }
        let plan = try ReleasePlan(before: try pages.before.map(page), after: try pages.after.map(page), removesDeletedFiles: true)
        typealias Way = CheckedOnce.Transition.Way
        var files: [[Way]] = []
        for fetch in plan.fetches {
            let local: ReleasePlan.Fetch.LocalCopy = fetch.held == nil ? .none : .held
            let ways = try fetch.actions(stagedIntact: false, local: local, inMemoryLimit: 8 << 20, decoding: [.gzip, .br, .zstd]).compactMap {
                action -> Way? in
                switch action {
                case .alreadyStaged, .empty, .blocks:
                    return nil
                case .patch(let patch):
                    return Way(object: try TreeObject.delta(from: patch.from, to: fetch.entry.sha256), sha256: patch.sha256)
                case .requestedPatch:
                    return Way(object: try TreeObject.delta(from: fetch.held!.sha256, to: fetch.entry.sha256), sha256: nil)
                case .download(let download), .stream(let download):
                    return Way(object: try download.object, sha256: download.sha256)
                }
            }
            if !ways.isEmpty { files.append(ways) }
        }
        return CheckedOnce.Transition(files: files)
    }

    // MARK: - Documents

    /// The client's reader over an answer already read.
    private func reader(_ answer: HTTPAnswer, server: Int) -> TreeReader<ReadAnswer> {
        TreeReader(source: ReadAnswer(name: name(server), answer: TreeAnswer(answer)), maximumDocumentBytes: Fleet.maximumDocumentBytes)
    }

    /// The channel document `answer` carries, checked by the client's walk against
    /// `lastAccepted` at `now`.
    func checkChannel(_ answer: HTTPAnswer, server: Int, now: Int64, lastAccepted: ChannelCheck.Accepted?) async throws -> ChannelDocument {
        let checked = try await reader(answer, server: server)
            .checkedChannel(fleet.settings.channel, trust: fleet.trust, fromFirstRoot: false, now: now, lastAccepted: lastAccepted)
        guard let checked else { throw SyncError(.server, "\(name(server)) answered 304 to a request without If-None-Match") }
        return checked.document
    }

    /// Release `id`'s document (interned as `index`) from `server`, checked and kept.
    func fetchRelease(_ id: String, index: UInt16, server: Int, address: String) async throws -> ReleaseDocument {
        let release = try TreeObject.release(id)
        let answer = try await get(release, server: server, kind: .document, address: address)
        try await check(release, answer, server: server) { reader in
            guard let (document, _) = try await reader.release(id) else { throw TreeAnswer(answer).refusal(of: release) }
            fleet.checked.keep(release: index, document)
        }
        guard let document = fleet.checked.releaseDocument(index) else { throw SyncError(.corrupt, "release \(id) was not kept") }
        return document
    }

    /// The page documents `pages` from `server`, checked and kept.
    func fetchPages(_ pages: [String], server: Int, address: String) async throws {
        for sha256 in pages {
            let page = try TreeObject.page(sha256)
            let answer = try await get(page, server: server, kind: .document, address: address)
            try await check(page, answer, server: server) { reader in fleet.checked.keep(page: sha256, try await reader.page(sha256).0) }
        }
    }

    /// Checks a document's answer: bytes checked before pass as they are; new ones go through
    /// the client's reader (`read`), once.
    private func check(_ object: TreeObject, _ answer: HTTPAnswer, server: Int, read: (TreeReader<ReadAnswer>) async throws -> Void) async throws {
        guard answer.status == 200, let body = answer.body else { throw TreeAnswer(answer).refusal(of: object) }
        if fleet.checked.isKnown(object, bytes: body) { return }
        try await read(reader(answer, server: server))
        fleet.checked.keep(object, bytes: body)
    }

    // MARK: - Reports

    /// Posts install `index`'s reports, as the client does after a sync; kept when refused.
    private func sendReports(_ index: Int, address: String) async {
        let table = fleet.table
        let interned = fleet.checked.interned
        let install = table.id(index)
        let pending = table.pending[index]
        let reports = pending.reports.map { release, kind in
            let id = interned.releases[Int(release)].id
            return ReportBatch.Report(
                release: id,
                install: install.reportHash(release: id),
                kind: kind.name,
                reason: kind == .failed ? "the app failed with this release" : nil,
                channel: fleet.settings.channel
            )
        }
        guard let body = try? JSONEncoder().encode(ReportBatch(reports: reports)) else { return }
        let server = fleet.settings.servers.count
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: fleet.settings.reportServer.target(path: "/v1/reports"))
        head.headers = headers(server: server, address: address)
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: String(body.count))
        let started = ContinuousClock.now
        let answer = try? await send(head, body: Array(body), server: server, keepBody: false)
        count(.report, server: server, status: answer?.status, bytes: body.count, since: started)
        if answer?.status == 202 {
            table.pending[index] = PendingReports()
            fleet.counters.update { $0.reportsSent += reports.count }
        }
    }

    // MARK: - Requests

    private func name(_ server: Int) -> String {
        server < fleet.settings.servers.count ? fleet.settings.servers[server].description : fleet.settings.reportServer.description
    }

    private func address(_ server: Int) -> ServerAddress {
        server < fleet.settings.servers.count ? fleet.settings.servers[server] : fleet.settings.reportServer
    }

    private func headers(server: Int, address: String) -> HTTPHeaders {
        let target = self.address(server)
        return [
            "Host": "\(target.host):\(target.port)",
            "Accept-Encoding": "identity",
            "User-Agent": "depot-fleet",
            "X-Forwarded-For": address,
        ]
    }

    /// A `GET` of `object` from `server`, its body kept; counted as `kind`.
    func get(
        _ object: TreeObject,
        server: Int,
        kind: FleetCounters.Kind,
        ifNoneMatch: String? = nil,
        address: String
    ) async throws -> HTTPAnswer {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: self.address(server).target(object))
        head.headers = headers(server: server, address: address)
        if let ifNoneMatch { head.headers.add(name: "If-None-Match", value: ifNoneMatch) }
        let started = ContinuousClock.now
        do {
            let answer = try await send(head, server: server, keepBody: true)
            count(kind, server: server, status: answer.status, bytes: answer.bodyBytes, since: started)
            return answer
        } catch {
            count(kind, server: server, status: nil, bytes: 0, since: started)
            throw SyncError(.network, "\(name(server))\(object.url): \(error)")
        }
    }

    /// Counts a request that began at `started` and ended now (`status` nil: no answer).
    private func count(_ kind: FleetCounters.Kind, server: Int, status: Int?, bytes: Int, since started: ContinuousClock.Instant) {
        let seconds = started.duration(to: .now).seconds
        fleet.counters.update { $0.count(kind, server: server, status: status, bytes: bytes, seconds: seconds) }
    }

    /// Sends on the worker's connection to `server`, connecting first when it has none open.
    private func send(_ head: HTTPRequestHead, body: [UInt8]? = nil, server: Int, keepBody: Bool) async throws -> HTTPAnswer {
        if connections[server]?.isActive != true {
            await connections[server]?.close()
            connections[server] = nil
            connections[server] = try await HTTPConnection.connect(to: address(server), group: loop)
        }
        do {
            return try await connections[server]!.send(head, body: body, keepBody: keepBody)
        } catch {
            await connections[server]?.close()
            connections[server] = nil
            throw error
        }
    }
}
