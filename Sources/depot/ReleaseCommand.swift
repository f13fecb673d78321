import ArgumentParser
import AsyncHTTPClient
import DepotHTTP
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

            @Option(help: "A file holding the publish token (or set DEPOT_TOKEN).")
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
                    if options.json {
                        print(String(decoding: Data(buffer: releases.body), as: UTF8.self))
                        print(String(decoding: Data(buffer: channels.body), as: UTF8.self))
                        return
                    }
                    var pointers: [String: [String]] = [:]
                    for channel in channels.json["channels"] as? [[String: Any]] ?? [] {
                        let id = (channel["release"] as? [String: Any])?["id"] as? String ?? ""
                        pointers[id, default: []].append(channel["name"] as? String ?? "")
                    }
                    for release in releases.json["releases"] as? [[String: Any]] ?? [] {
                        let id = release["id"] as? String ?? ""
                        let number = release["number"] as? Int ?? 0
                        let files = release["files"] as? Int ?? 0
                        let bytes = Int64(release["bytes"] as? Int ?? 0)
                        let created = release["createdAt"] as? String ?? ""
                        let channels = pointers[id].map { "\t← " + $0.sorted().joined(separator: ", ") } ?? ""
                        print("\(number)\t\(id.prefix(12))…\t\(files) files\t\(ByteCountText(bytes))\t\(created)\(channels)")
                    }
                }
            }
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
                    try await moveChannel("/v1/channels/\(channel)/promote", body: ["release": release], options: options)
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
private func moveChannel(_ path: String, body: [String: String]?, options: Depot.Release.Options) async throws {
    let api = try options.api()
    let reply = try await withHTTPClient { client in try await api.send(.POST, path, json: body, client: client) }
    printMove(reply, json: options.json)
}

private func printMove(_ reply: PublisherAPI.Reply, json: Bool) {
    if json {
        print(String(decoding: Data(buffer: reply.body), as: UTF8.self))
        return
    }
    let move = reply.json
    let from = (move["from"] as? [String: Any])?["number"] as? Int
    let to = (move["to"] as? [String: Any])?["number"] as? Int ?? 0
    let counts = ["added", "changed", "removed"].map { "\(move[$0] as? Int ?? 0) \($0)" }.joined(separator: ", ")
    print("\(move["channel"] as? String ?? ""): release \(from.map(String.init) ?? "none") → \(to) (\(counts))")
}
