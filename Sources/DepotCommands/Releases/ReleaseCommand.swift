import ArgumentParser
import AsyncHTTPClient
import DepotAPI
import DepotHTTP
import DepotManifest
import DepotServer
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

extension Depot {
    /// `depot release ls|promote|rollback`: the releases a server holds, and where its channels
    /// point. Moving a channel uploads nothing and takes effect at once.
    struct Release: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List releases, and point channels at them.",
            subcommands: [List.self, Promote.self, Rollback.self]
        )

        /// What every subcommand takes.
        struct Options: ParsableArguments {
            @OptionGroup var server: ServerOptions

            @Option(help: "A file holding the token (or set DEPOT_TOKEN); listing needs the read scope, moving a channel promote.")
            var tokenFile: PathArgument?

            @Flag(help: "Print the server's JSON reply.")
            var json = false

            func api(in environment: CommandEnvironment) throws -> PublisherAPI {
                PublisherAPI(baseURL: try server.baseURL(in: environment), token: try PublisherAPI.readToken(file: tokenFile, in: environment))
            }
        }

        struct List: DepotCommand {
            static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the newest releases and the channels.")

            @OptionGroup var options: Options

            @Option(help: "How many releases to list.")
            var limit = 20

            func run(in environment: CommandEnvironment) async throws {
                try await reportingFailures(in: environment) {
                    let api = try options.api(in: environment)
                    let (releases, channels) = try await environment.withTransport { client in
                        (
                            try await api.send(.GET, "/v1/releases?limit=\(limit)", transport: client),
                            try await api.send(.GET, "/v1/channels", transport: client)
                        )
                    }
                    let (releaseList, channelList) = (try releases.decoded(ReleaseList.self), try channels.decoded(ChannelList.self))
                    if options.json {
                        // One document: `json.load` and `jq` read one.
                        environment.print(
                            String(
                                decoding: try APIJSON.encoder.encode(Listing(releases: releaseList.releases, channels: channelList.channels)),
                                as: UTF8.self
                            )
                        )
                        return
                    }
                    var pointers: [String: [String]] = [:]
                    for channel in channelList.channels {
                        pointers[channel.release.id, default: []].append(channel.name)
                    }
                    for release in releaseList.releases {
                        let channels = pointers[release.id].map { "\t← " + $0.sorted().joined(separator: ", ") } ?? ""
                        // What an app must know of it: critical (apply at once), and the lowest
                        // app version that can use it.
                        let marks = [
                            release.critical == true ? "critical" : nil,
                            release.minimumClientVersion.map { "needs app \($0)" },
                        ].compactMap { $0 }
                        environment.print(
                            "\(release.number)\t\(release.id.prefix(12))…\t\(counted(release.files, "file"))\t\(ByteCountText(release.bytes))\t\(release.createdAt)"
                                + (marks.isEmpty ? "" : "\t" + marks.joined(separator: ", ")) + channels
                                + (release.message.map { "\t\"\(AuditText.escaped($0))\"" } ?? "")
                        )
                    }
                }
            }
        }

        /// `ls --json`: the releases and the channels, in one document.
        struct Listing: Encodable {
            let releases: [ReleaseInfo]
            let channels: [ChannelInfo]
        }

        struct Promote: DepotCommand {
            static let configuration = CommandConfiguration(abstract: "Point a channel at a release (its number or id).")

            @Argument(help: "The release: its number, or its id.")
            var release: String

            @Option(help: "The channel to point.")
            var channel = "stable"

            @OptionGroup var options: Options

            func run(in environment: CommandEnvironment) async throws {
                try await reportingFailures(in: environment) {
                    try await moveChannel(
                        "/v1/channels/\(channel)/promote",
                        body: PromoteRequest(release: release),
                        options: options,
                        in: environment
                    )
                }
            }
        }

        struct Rollback: DepotCommand {
            static let configuration = CommandConfiguration(abstract: "Point a channel back at the release it pointed to before.")

            @Option(help: "The channel to roll back.")
            var channel = "stable"

            @OptionGroup var options: Options

            func run(in environment: CommandEnvironment) async throws {
                try await reportingFailures(in: environment) {
                    try await moveChannel("/v1/channels/\(channel)/rollback", body: nil, options: options, in: environment)
                }
            }
        }
    }
}

/// Sends a promote or rollback and prints one line for the move:
/// `stable: release 3 → 2 (1 added, 0 changed, 1 removed)`.
private func moveChannel(_ path: String, body: PromoteRequest?, options: Depot.Release.Options, in environment: CommandEnvironment) async throws {
    let api = try options.api(in: environment)
    let reply = try await environment.withTransport { client in try await api.send(.POST, path, json: body, transport: client) }
    try printMove(reply, json: options.json, in: environment)
}

private func printMove(_ reply: PublisherAPI.Reply, json: Bool, in environment: CommandEnvironment) throws {
    if json {
        environment.print(reply.text)
        return
    }
    let move = try reply.decoded(MoveReply.self)
    if move.rolloutRolledBack == true {
        let rollout = move.from.map { "the rollout of release \($0.number)" } ?? "the rollout"
        return environment.print(
            "\(move.channel): stays on release \(move.to.number); \(rollout) was rolled back, its installs return to release \(move.to.number)"
        )
    }
    let counts = "\(move.added) added, \(move.changed) changed, \(move.removed) removed"
    environment.print("\(move.channel): release \(move.from.map { String($0.number) } ?? "none") → \(move.to.number) (\(counts))")
}
