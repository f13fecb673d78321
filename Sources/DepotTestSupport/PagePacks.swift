import DepotAPI
import DepotTestFixtures
import Foundation
import Testing

/// Page packs (`/packs/{page}` and `.br`) as tests publish and count them.
package enum PagePacks {
    /// The metric series counting brotli packs made.
    package static let brMade = #"depot_packs_made_total{kind="br"}"#
    /// The metric series counting plain packs made.
    package static let identityMade = #"depot_packs_made_total{kind="identity"}"#

    /// The value of the metric line `series` on `server`.
    package static func metric(_ server: some TestServer, _ series: String) async throws -> Double {
        try await server.withConnection { try await $0.metric(series) }
    }

    /// How many brotli and plain packs `server` has made.
    package static func made(_ server: some TestServer) async throws -> (br: Double, identity: Double) {
        (try await metric(server, brMade), try await metric(server, identityMade))
    }

    /// Publishes `count` small JSON-like files (they compress well together) in one release;
    /// returns its pages and one file's path and SHA-256.
    package static func publish(_ server: some TestServer, count: Int) async throws -> (pages: [String], path: String, sha256: String) {
        let members = (0..<count).map { index in
            Fixture.batchMember(
                "{\"id\": \(index), \"name\": \"station \(index)\", \"departures\": ["
                    + (0..<(20 + index % 13)).map { "{\"time\": \"\($0 % 24):\(index % 60)\", \"platform\": \($0 % 9)}" }.joined(separator: ", ")
                    + "]}"
            )
        }
        return try await server.withConnection { connection in
            let stored = try await connection.request(
                "POST",
                "/v1/blobs",
                headers: [PublishToken.authorization, Fixture.blobBatchContentType],
                body: Fixture.blobBatch(members)
            )
            #expect(stored.status == 201)
            let commit = CommitRequest(files: members.enumerated().map { .init(path: "d/\($0.offset).json", sha256: $0.element.sha256) })
            let committed = try await connection.request(
                "POST",
                "/v1/releases",
                headers: [PublishToken.authorization, ("Content-Type", "application/json")],
                body: Array(try APIJSON.encoder.encode(commit))
            )
            #expect(committed.status == 201)
            let document = try await connection.request("GET", "/channels/stable").json
            let release = try await connection.request("GET", try #require(document["url"] as? String)).json
            return (try #require(release["pages"] as? [String]), "d/0.json", members[0].sha256)
        }
    }
}
