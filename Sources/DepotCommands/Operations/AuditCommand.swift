import ArgumentParser
import DepotAPI
import Foundation
import NIOHTTP1

extension Depot {
    /// `depot audit`: the audit trail, newest first: who published, promoted, rolled back or
    /// moved a rollout, and what the scopes refused. Needs a token with the `read` scope.
    struct Audit: DepotCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the audit trail: who changed what, when, and from where.",
            discussion: "Newest first, a record a line: time, token, action, channel, release, serial, client, detail."
        )

        @OptionGroup var options: Release.Options

        @Option(help: "Only the records of this channel.")
        var channel: String?

        @Option(help: "Only the records of this token (its name in access.tokens).")
        var token: String?

        @Option(help: "How many records (1 to 10000).")
        var limit = 50

        func validate() throws {
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit takes a number from 1 to 10000") }
        }

        func run(in environment: CommandEnvironment) async throws {
            try await reportingFailures(in: environment) {
                let api = try options.api(in: environment)
                var query = URLComponents()
                query.queryItems = [URLQueryItem(name: "limit", value: "\(limit)")]
                if let channel { query.queryItems?.append(URLQueryItem(name: "channel", value: channel)) }
                if let token { query.queryItems?.append(URLQueryItem(name: "token", value: token)) }
                let reply = try await environment.withTransport {
                    try await api.send(.GET, "/v1/audit?" + (query.percentEncodedQuery ?? ""), transport: $0)
                }
                if options.json {
                    environment.print(reply.text)
                    return
                }
                for record in try reply.decoded(AuditList.self).records {
                    let fields = [
                        record.at, record.token, record.action, record.channel ?? "-", record.release.map { "#\($0)" } ?? "-",
                        record.serial.map { "serial \($0)" } ?? "-", record.client ?? "-", record.detail ?? "",
                    ]
                    // Escaped: a field holding a line break or tab cannot pass for another record.
                    environment.print(fields.map { AuditText.escaped($0) }.joined(separator: "\t"))
                }
            }
        }
    }
}
