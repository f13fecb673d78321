import ArgumentParser
import AsyncHTTPClient
import DepotManifest
import DepotServer
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

extension Depot {
    /// `depot ls --server URL`: the files of the release a channel points to.
    struct List: DepotCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls",
            abstract: "List the files of the release a channel of a Depot server points to."
        )

        @OptionGroup var server: ServerOptions

        @Option(help: "The channel.")
        var channel = ChannelName.default

        @Flag(help: "Print the channel, the release and its files as JSON.")
        var json = false

        struct Listing: Encodable {
            let channel: ChannelDocument?
            let release: ReleaseDocument?
            let files: [ReleaseEntry]
        }

        func run(in environment: CommandEnvironment) async throws {
            try await reportingFailures(in: environment) {
                let baseURL = try server.baseURL(in: environment)
                let listing = try await environment.withTransport { client in
                    guard let channel = try await get(try TreeObject.channel(channel).url, baseURL: baseURL, client: client, as: ChannelDocument.self)
                    else {
                        return Listing(channel: nil, release: nil, files: [])
                    }
                    guard let release = try await get(channel.url, baseURL: baseURL, client: client, as: ReleaseDocument.self) else {
                        throw CommandFailure("the server has no release \(channel.release)")
                    }
                    var files: [ReleaseEntry] = []
                    for page in release.pages {
                        guard let page = try await get(try TreeObject.page(page).url, baseURL: baseURL, client: client, as: ReleasePage.self) else {
                            throw CommandFailure("the server has no page \(page)")
                        }
                        files += page.entries
                    }
                    return Listing(channel: channel, release: release, files: files.sorted { $0.path < $1.path })
                }
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
                    environment.print(String(decoding: try encoder.encode(listing), as: UTF8.self))
                    return
                }
                for file in listing.files {
                    environment.print("\(file.path)\tv\(file.version)\t\(ByteCountText(file.size))\t\(file.sha256.prefix(12))…\t\(file.lastModified)")
                }
                if let document = listing.channel {
                    environment.print("\(listing.files.count) files, release \(document.number) on \(channel) (serial \(document.serial))")
                } else {
                    environment.print("0 files: nothing is published on \(channel) yet")
                }
            }
        }

        /// The JSON document at `path`, or `nil` for a 404.
        func get<T: Decodable>(_ path: String, baseURL: String, client: any HTTPTransport, as type: T.Type) async throws -> T? {
            let body: ByteBuffer
            do {
                let response = try await client.execute(HTTPClientRequest(url: baseURL + path), timeout: .seconds(60))
                if response.status == .notFound { return nil }
                guard response.status == .ok else { throw CommandFailure("the server answered \(response.status.code) for \(path)") }
                body = try await response.body.collect(upTo: 64 << 20)
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure(describeConnectionError(error, server: baseURL))
            }
            guard let value = try? JSONDecoder().decode(T.self, from: Data(buffer: body)) else {
                throw CommandFailure("\(path) is not the JSON expected")
            }
            return value
        }
    }
}
