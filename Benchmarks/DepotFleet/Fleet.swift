import DepotClient
import DepotManifest
import DepotPolicy
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import UnixSignals

/// A simulated fleet of installs, polling real servers through real caches: its settings, its
/// installs' state, what it checked once, its counters and its schedule.
final class Fleet: Sendable {
    static let maximumDocumentBytes = 64 << 20

    let settings: FleetSettings
    let table: InstallTable
    let checked = CheckedOnce()
    let counters = SharedCounters()
    let schedule: Schedule
    let trust: ChannelCheck.Trust
    let group: any EventLoopGroup
    /// The status lines' sampler: the rate since the last line, the peak.
    let sampler = Mutex(StatusLine.Sampler())

    init(settings: FleetSettings, group: any EventLoopGroup) throws {
        self.settings = settings
        self.group = group
        trust = try ChannelCheck.Trust(trustedKeys: [settings.trustedKey], trustedRoot: nil)
        table = InstallTable(count: settings.installs)
        var random = SplitMix64(seed: settings.seed)
        let networks = NetworkMix.draw(count: settings.installs, using: &random)
        let shares = settings.clientVersions.map(\.share)
        for index in 0..<settings.installs {
            table.idHigh[index] = random.next()
            table.idLow[index] = random.next()
            table.network[index] = networks[index]
            var draw = random.unit() * shares.reduce(0, +)
            var version = 0
            while version < shares.count - 1, draw >= shares[version] {
                draw -= shares[version]
                version += 1
            }
            table.version[index] = UInt8(version)
        }
        networkSummary = NetworkMix.summary(networks)
        schedule = Schedule(count: settings.installs, interval: settings.interval, scale: settings.scale)
    }

    /// The networks drawn, by kind.
    let networkSummary: [String: Int]

    /// Every install holds the release the channel gives it now, as if it had synced before
    /// the run: the channel's document and each release's documents are read (and checked)
    /// once from the first server, so a run starts from a fleet in step, not from a million
    /// first downloads.
    func seed() async throws {
        let worker = Worker(fleet: self, loop: group.next())
        try await worker.seed()
    }

    /// Runs until SIGTERM or SIGINT: the workers, a status line a second, then the summary.
    func run(output: StatusOutput) async throws {
        try await seed()
        schedule.begin()
        output.write(event: "seeded", extra: ["networks": networkSummary, "installs": settings.installs])
        let started = ContinuousClock.now
        // Each worker runs on one event loop, where its connections are.
        let executors = self.group.makeIterator().map(EventLoopExecutor.init)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<settings.connections {
                let executor = executors[index % executors.count]
                group.addTask(executorPreference: executor) { await Worker(fleet: self, loop: executor.loop).run() }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    output.write(self.sampler.withLock { $0.take(self, type: "status") })
                }
            }
            group.addTask {
                for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) { break }
            }
            // The first to end is the signal's: then every worker stops after its poll.
            await group.next()
            group.cancelAll()
        }
        var summary = sampler.withLock { $0.take(self, type: "summary") }
        summary["elapsed"] = started.duration(to: .now).seconds
        output.write(summary)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
