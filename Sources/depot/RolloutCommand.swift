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

        struct Start: AsyncParsableCommand {
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

            @OptionGroup var options: Release.Options

            func run() async throws {
                try await reportingFailures {
                    let request = RolloutRequest(
                        release: release,
                        steps: try steps.map(Self.steps),
                        everySeconds: every.map { Int64($0.seconds.rounded(.up)) },
                        maxFailureRate: try maxFailureRate.map(Self.rate),
                        minReports: minReports,
                        autoRollback: !noAutoRollback
                    )
                    try await sendRollout(.POST, "/v1/channels/\(channel)/rollout", body: request, options: options)
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

        struct Status: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Show the channel's newest rollout.")

            @Option(help: "The channel.")
            var channel = "stable"

            @OptionGroup var options: Release.Options

            func run() async throws {
                try await reportingFailures { try await sendRollout(.GET, "/v1/channels/\(channel)/rollout", body: nil, options: options) }
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
protocol RolloutChange: AsyncParsableCommand {
    static var action: RolloutAction { get }
    var channel: String { get }
    var options: Depot.Release.Options { get }
}

extension RolloutChange {
    func run() async throws {
        try await reportingFailures {
            try await sendRollout(.POST, "/v1/channels/\(channel)/rollout/\(Self.action.rawValue)", body: nil, options: options)
        }
    }
}

/// Sends a rollout request and prints one line for the rollout:
/// `stable: release 8 at 10% (running) over release 7; since the step: 212 applied, 3 failed, 150 healthy; 1% → 10%: the gate held: …`.
private func sendRollout(_ method: HTTPMethod, _ path: String, body: RolloutRequest?, options: Depot.Release.Options) async throws {
    let api = try options.api()
    let reply = try await withHTTPClient { client in try await api.send(method, path, json: body, client: client) }
    if options.json {
        print(reply.text)
        return
    }
    let rollout = try reply.decoded(RolloutInfo.self)
    let number = { (number: Int64?) in number.map(String.init) ?? "(removed)" }
    let reports = rollout.reports
    print(
        "\(rollout.channel): release \(number(rollout.releaseNumber)) at \(rollout.percent)% (\(rollout.state)) over release \(number(rollout.baseNumber)); "
            + "since the step: \(reports.applied) applied, \(reports.failed) failed, \(reports.healthy) healthy; \(rollout.reason)"
    )
}
