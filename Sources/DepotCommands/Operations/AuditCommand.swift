import ArgumentParser
import DepotAPI
import Foundation
import NIOHTTP1

extension Depot {
    /// `depot audit`: the audit trail, newest first: who published, promoted, rolled back or
    /// moved a rollout, and what the scopes refused. Needs a token with the `read` scope.
    struct Audit: AsyncParsableCommand {
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

        func run() async throws {
            try await reportingFailures {
                let api = try options.api()
                var query = URLComponents()
                query.queryItems = [URLQueryItem(name: "limit", value: "\(limit)")]
                if let channel { query.queryItems?.append(URLQueryItem(name: "channel", value: channel)) }
                if let token { query.queryItems?.append(URLQueryItem(name: "token", value: token)) }
                let reply = try await withHTTPClient { try await api.send(.GET, "/v1/audit?" + (query.percentEncodedQuery ?? ""), client: $0) }
                if options.json {
                    print(reply.text)
                    return
                }
                for record in try reply.decoded(AuditList.self).records {
                    let fields = [
                        record.at, record.token, record.action, record.channel ?? "-", record.release.map { "#\($0)" } ?? "-",
                        record.serial.map { "serial \($0)" } ?? "-", record.client ?? "-", record.detail ?? "",
                    ]
                    // Escaped: a field holding a line break or tab cannot pass for another record.
                    print(fields.map { AuditText.escaped($0) }.joined(separator: "\t"))
                }
            }
        }
    }
}
