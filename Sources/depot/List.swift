import ArgumentParser
import AsyncHTTPClient
import DepotManifest
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

extension Depot {
    /// `depot ls --server URL`: what the server publishes, from its manifest.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the files a Depot server publishes.")

        @OptionGroup var server: ServerOptions

        @Flag(help: "Print the manifest as JSON.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                let baseURL = try server.baseURL()
                let body: ByteBuffer
                do {
                    body = try await withHTTPClient { client in
                        let response = try await client.execute(HTTPClientRequest(url: baseURL + "/manifest.json"), timeout: .seconds(60))
                        guard response.status == .ok else {
                            throw CommandFailure("the server answered \(response.status.code) for /manifest.json")
                        }
                        return try await response.body.collect(upTo: 256 << 20)
                    }
                } catch let failure as CommandFailure {
                    throw failure
                } catch {
                    throw CommandFailure(describeConnectionError(error, server: baseURL))
                }
                if json {
                    print(String(decoding: Data(buffer: body), as: UTF8.self), terminator: "")
                    return
                }
                guard let manifest = try? JSONDecoder().decode(Manifest.self, from: Data(buffer: body)) else {
                    throw CommandFailure("the server's manifest is not valid JSON")
                }
                for file in manifest.files {
                    print("\(file.path)\tv\(file.version)\t\(ByteCountText(file.size))\t\(file.sha256.prefix(12))…\t\(file.lastModified)")
                }
                print("\(manifest.files.count) files, manifest serial \(manifest.serial)")
            }
        }
    }
}
