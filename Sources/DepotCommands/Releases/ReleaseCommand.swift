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
            var tokenFile: String?

            @Flag(help: "Print the server's JSON reply.")
            var json = false

            func api() throws -> PublisherAPI {
                PublisherAPI(baseURL: try server.baseURL(), token: try PublisherAPI.readToken(file: tokenFile))
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the newest releases and the channels.")

            @OptionGroup var options: Options

            @Option(help: "How many releases to list.")
            var limit = 20

            func run() async throws {
                try await reportingFailures {
                    let api = try options.api()
                    let (releases, channels) = try await withHTTPClient { client in
                        (
                            try await api.send(.GET, "/v1/releases?limit=\(limit)", client: client),
                            try await api.send(.GET, "/v1/channels", client: client)
                        )
                    }
                    let (releaseList, channelList) = (try releases.decoded(ReleaseList.self), try channels.decoded(ChannelList.self))
                    if options.json {
                        // One document: `json.load` and `jq` read one.
                        print(
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
                        print(
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

        struct Promote: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Point a channel at a release (its number or id).")

            @Argument(help: "The release: its number, or its id.")
            var release: String

            @Option(help: "The channel to point.")
            var channel = "stable"

            @OptionGroup var options: Options

            func run() async throws {
                try await reportingFailures {
                    try await moveChannel("/v1/channels/\(channel)/promote", body: PromoteRequest(release: release), options: options)
                }
            }
        }

        struct Rollback: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Point a channel back at the release it pointed to before.")

            @Option(help: "The channel to roll back.")
            var channel = "stable"

            @OptionGroup var options: Options

            func run() async throws {
                try await reportingFailures {
                    try await moveChannel("/v1/channels/\(channel)/rollback", body: nil, options: options)
                }
            }
        }
    }
}

/// Sends a promote or rollback and prints one line for the move:
/// `stable: release 3 → 2 (1 added, 0 changed, 1 removed)`.
private func moveChannel(_ path: String, body: PromoteRequest?, options: Depot.Release.Options) async throws {
    let api = try options.api()
    let reply = try await withHTTPClient { client in try await api.send(.POST, path, json: body, client: client) }
    try printMove(reply, json: options.json)
}

private func printMove(_ reply: PublisherAPI.Reply, json: Bool) throws {
    if json {
        print(reply.text)
        return
    }
    let move = try reply.decoded(MoveReply.self)
    if move.rolloutRolledBack == true {
        let rollout = move.from.map { "the rollout of release \($0.number)" } ?? "the rollout"
        return print(
            "\(move.channel): stays on release \(move.to.number); \(rollout) was rolled back, its installs return to release \(move.to.number)"
        )
    }
    let counts = "\(move.added) added, \(move.changed) changed, \(move.removed) removed"
    print("\(move.channel): release \(move.from.map { String($0.number) } ?? "none") → \(move.to.number) (\(counts))")
}
