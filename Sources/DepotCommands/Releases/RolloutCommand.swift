import ArgumentParser
import DepotAPI
import Foundation
import NIOHTTP1

extension Depot {
    /// `depot rollout start|status|pause|resume|halt|rollback`: staged rollouts of a release to
    /// a channel's installs (docs/releases.md, "Rollouts").
    struct Rollout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Roll a release out to a channel's installs step by step, gated on their reports.",
            subcommands: [Start.self, Status.self, Pause.self, Resume.self, Halt.self, Rollback.self]
        )

        struct Start: DepotCommand {
            static let configuration = CommandConfiguration(abstract: "Start rolling a release (its number or id) out.")

            @Argument(help: "The release: its number, or its id.")
            var release: String

            @Option(help: "The channel whose installs get it.")
            var channel = "stable"

            // Absent options are the server's standard plan (RolloutPlan.standard).
            @Option(help: "Percentages of installs, rising, the last 100 (default 1,10,50,100).")
            var steps: String?

            @Option(help: "The least time a step lasts: seconds, or a number with s, m, h or d (default 1h).")
            var every: DurationArgument?

            @Option(help: "The highest share of reporting installs that may fail for a step to advance, as 2% or 0.02 (default 2%).")
            var maxFailureRate: String?

            @Option(help: "The fewest reports since a step began for it to advance, or to halt (default 200).")
            var minReports: Int64?

            @Flag(help: "Only halt when the gate fails; do not roll back on its own.")
            var noAutoRollback = false

            @Option(
                help: ArgumentHelp(
                    "The networks the gate needs reports from, for this rollout (default: the server's reports.gateNetworks, 3).",
                    discussion: """
                        A network is the /24 of a client's IPv4 address or the /56 of its IPv6 one (behind a trusted proxy, of the address it forwards). A fleet behind \
                        fewer networks (one office, a test lab, one carrier NAT) never advances on the server's setting: give it \
                        --min-networks 1. The trade-off: anyone on that many networks can send reports, so forged reports from one \
                        network can then advance a bad release a step, or halt and roll back a good one (SECURITY.md).
                        """
                )
            )
            var minNetworks: Int?

            @OptionGroup var options: Release.Options

            func run(in environment: CommandEnvironment) async throws {
                try await reportingFailures(in: environment) {
                    let request = RolloutRequest(
                        release: release,
                        steps: try steps.map(Self.steps),
                        everySeconds: every.map { Int64($0.seconds.rounded(.up)) },
                        maxFailureRate: try maxFailureRate.map(Self.rate),
                        minReports: minReports,
                        autoRollback: !noAutoRollback,
                        minNetworks: minNetworks
                    )
                    try await sendRollout(.POST, "/v1/channels/\(channel)/rollout", body: request, options: options, in: environment)
                }
            }

            static func steps(_ text: String) throws -> [Int] {
                let steps = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard !steps.isEmpty, steps.allSatisfy({ $0 != nil }) else { throw CommandFailure("--steps takes percentages, as 1,10,50,100") }
                return steps.compactMap { $0 }
            }

            /// `2%` or `0.02` as a fraction.
            static func rate(_ text: String) throws -> Double {
                let percent = text.hasSuffix("%")
                guard let value = Double(percent ? String(text.dropLast()) : text) else {
                    throw CommandFailure("--max-failure-rate takes a share, as 2% or 0.02")
                }
                return percent ? value / 100 : value
            }
        }

        struct Status: DepotCommand {
            static let configuration = CommandConfiguration(
                abstract: "Show each channel's newest rollout (the live ones first) and what its gate waits for.",
                discussion: "With --json, {\"rollouts\": [...]}; with --channel, that channel's rollout alone, as the API gives it."
            )

            @Option(help: "Only this channel's newest rollout.")
            var channel: String?

            @OptionGroup var options: Release.Options

            func run(in environment: CommandEnvironment) async throws {
                try await reportingFailures(in: environment) {
                    if let channel {
                        try await sendRollout(.GET, "/v1/channels/\(channel)/rollout", body: nil, options: options, in: environment)
                        return
                    }
                    let api = try options.api(in: environment)
                    let reply = try await environment.withTransport { client in try await api.send(.GET, "/v1/rollouts", transport: client) }
                    if options.json {
                        environment.print(reply.text)
                        return
                    }
                    let rollouts = try reply.decoded(RolloutList.self).rollouts
                    if rollouts.isEmpty { environment.print("No rollout yet.") }
                    for rollout in rollouts { environment.print(describe(rollout)) }
                }
            }
        }

        struct Pause: RolloutChange {
            static let configuration = CommandConfiguration(abstract: "Hold the rollout at its percentage.")
            static let action = RolloutAction.pause
            @Option(help: "The channel.") var channel = "stable"
            @OptionGroup var options: Release.Options
        }

        struct Resume: RolloutChange {
            static let configuration = CommandConfiguration(abstract: "Go on with a paused or halted rollout: its step starts again now.")
            static let action = RolloutAction.resume
            @Option(help: "The channel.") var channel = "stable"
            @OptionGroup var options: Release.Options
        }

        struct Halt: RolloutChange {
            static let configuration = CommandConfiguration(abstract: "Stop the rollout at its percentage, as a failed gate does.")
            static let action = RolloutAction.halt
            @Option(help: "The channel.") var channel = "stable"
            @OptionGroup var options: Release.Options
        }

        struct Rollback: RolloutChange {
            static let configuration = CommandConfiguration(abstract: "End the rollout: every install goes to the release it replaced.")
            static let action = RolloutAction.rollback
            @Option(help: "The channel.") var channel = "stable"
            @OptionGroup var options: Release.Options
        }
    }
}

/// `depot rollout pause|resume|halt|rollback`: one `POST /v1/channels/{channel}/rollout/{action}`.
protocol RolloutChange: DepotCommand {
    static var action: RolloutAction { get }
    var channel: String { get }
    var options: Depot.Release.Options { get }
}

extension RolloutChange {
    func run(in environment: CommandEnvironment) async throws {
        try await reportingFailures(in: environment) {
            try await sendRollout(.POST, "/v1/channels/\(channel)/rollout/\(Self.action.rawValue)", body: nil, options: options, in: environment)
        }
    }
}

/// Sends a rollout request and prints the rollout (``describe(_:)``).
private func sendRollout(
    _ method: HTTPMethod,
    _ path: String,
    body: RolloutRequest?,
    options: Depot.Release.Options,
    in environment: CommandEnvironment
) async throws {
    let api = try options.api(in: environment)
    let reply = try await environment.withTransport { client in try await api.send(method, path, json: body, transport: client) }
    if options.json {
        environment.print(reply.text)
        return
    }
    environment.print(describe(try reply.decoded(RolloutInfo.self)))
}

/// A rollout in a line, and for a running one its gate's verdict in a second:
/// `stable: release 8 at 10% (running) over release 7; since the step: 212 applied, 3 failed, 150 healthy; 1% → 10%: the gate held: …`
/// `  gate: waiting: reports from 1 of 3 networks (reports.gateNetworks); 212 of 200 reports`.
private func describe(_ rollout: RolloutInfo) -> String {
    let number = { (number: Int64?) in number.map(String.init) ?? "(removed)" }
    let reports = rollout.reports
    return
        "\(rollout.channel): release \(number(rollout.releaseNumber)) at \(rollout.percent)% (\(rollout.state)) over release \(number(rollout.baseNumber)); "
        + "since the step: \(reports.applied) applied, \(reports.failed) failed, \(reports.healthy) healthy; \(rollout.reason)"
        + (rollout.gate.map { "\n  gate: \($0.verdict)" } ?? "")
}
