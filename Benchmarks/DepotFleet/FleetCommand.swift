import ArgumentParser
import DepotManifest
import NIOCore
import NIOPosix

/// `depot-fleet`: a simulated fleet of installs polling Depot through real caches
/// (docs/performance.md, "A million installs"; `scripts/bench-fleet` runs it in its scenario).
@main
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "depot-fleet",
        abstract: "Simulate a fleet of installs polling a Depot channel through real caches.",
        discussion: """
            Each install follows DepotClient's rules (the channel check, RolloutSide, ReleasePlan, \
            Failover, reports) without writing files, on real HTTP/1.1 keep-alive connections. It \
            prints a JSON status line every real second, and a summary on SIGTERM or SIGINT.
            """
    )

    @Option(help: "The servers each install tries in order, comma-separated http:// URLs (the edge, then the bucket's).")
    var servers: String

    @Option(help: "Where reports are posted (default: the first server).")
    var reportServer: String?

    @Option(help: "The channel polled.")
    var channel = "stable"

    @Option(help: "The channel key's public half, base64 (depot keygen prints it).")
    var trustedKey: String

    @Option(help: "How many installs.")
    var installs = 1_000_000

    @Option(help: "An install's poll interval, in simulated seconds.")
    var interval = 900.0

    @Option(help: "Simulated seconds per real second.")
    var scale = 1.0

    @Option(help: "The fleet's app versions and their shares: 1.0=0.2,2.0=0.8.")
    var clientVersions = "2.0=1"

    @Option(help: "A release number bad for one app version: NUMBER@VERSION (its installs report failed).")
    var bad: String?

    @Option(help: "Keep-alive connections per server.")
    var connections = 128

    @Option(help: "The seed the installs are drawn from.")
    var seed: UInt64 = 1

    @Option(help: "A file for the status lines (default: standard output).")
    var status: String?

    func validate() throws {
        guard installs > 0, installs <= 10_000_000 else { throw ValidationError("--installs must be 1 to 10,000,000") }
        guard interval > 0, scale > 0 else { throw ValidationError("--interval and --scale must be above 0") }
        guard connections > 0, connections <= 4096 else { throw ValidationError("--connections must be 1 to 4096") }
    }

    func run() async throws {
        let servers = try self.servers.split(separator: ",").map { try ServerAddress(String($0)) }
        guard let first = servers.first else { throw ValidationError("--servers names no server") }
        let versions = try clientVersions.split(separator: ",").map { pair -> (ClientVersion, Double) in
            let parts = pair.split(separator: "=")
            guard parts.count == 2, let version = ClientVersion(String(parts[0])), let share = Double(parts[1]), share >= 0 else {
                throw ValidationError("--client-versions: not VERSION=SHARE: \(pair)")
            }
            return (version, share)
        }
        let bad = try self.bad.map { text -> (Int64, ClientVersion) in
            let parts = text.split(separator: "@")
            guard parts.count == 2, let number = Int64(parts[0]), let version = ClientVersion(String(parts[1])) else {
                throw ValidationError("--bad: not NUMBER@VERSION: \(text)")
            }
            return (number, version)
        }
        let settings = FleetSettings(
            servers: servers,
            reportServer: try reportServer.map(ServerAddress.init) ?? first,
            channel: channel,
            trustedKey: trustedKey,
            installs: installs,
            interval: interval,
            scale: scale,
            clientVersions: versions.map { (version: $0.0, share: $0.1) },
            bad: bad.map { (number: $0.0, version: $0.1) },
            connections: connections,
            seed: seed
        )
        let fleet = try Fleet(settings: settings, group: MultiThreadedEventLoopGroup.singleton)
        let output = try StatusOutput(path: status)
        try await fleet.run(output: output)
    }
}
