import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Retention per channel through the publisher's API (issue 57, defect 3): a token that may
/// publish to beta only, by committing to beta, cannot get stable's earlier release collected.
/// Before, 5 beta commits had the files of stable's rollback target removed: rollback answered
/// 410.
@Suite("Retention per channel, through the API")
struct ChannelRetentionHTTPTests {
    static let beta = ("Authorization", "Bearer beta-secret")

    @Test("5 commits by a publish=beta token leave stable's rollback target: its blob is served and the rollback answers 200")
    func scopedBetaCommits() async throws {
        var configuration = ServerConfiguration(
            publish: .init(keepVersions: 5, retiredGracePeriod: .zero, collectionInterval: .milliseconds(100))
        )
        configuration.accessTokens = [try AccessToken(entry: "name=ci publish=beta token=beta-secret", position: 1)]
        let one = Data("stable one\n".utf8)
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await server.connection { connection in
                #expect(try await connection.publish("a.txt", one).status == 201)
                #expect(try await connection.publish("a.txt", Data("stable two\n".utf8)).status == 201)
                let refused = try await connection.request("POST", "/v1/channels/stable/rollback", headers: [Self.beta])
                #expect(refused.status == 403, "the beta token cannot touch stable")
                for index in 1...5 {
                    let bytes = Data("beta \(index)\n".utf8)
                    let sha256 = Fixture.sha256(bytes)
                    let stored = try await connection.request("PUT", "/v1/blobs/\(sha256)", headers: [Self.beta], body: Array(bytes))
                    #expect(stored.status == 201 || stored.status == 200, "\(stored.bodyText)")
                    let commit = CommitRequest(channel: "beta", files: [.init(path: "a.txt", sha256: sha256)])
                    let committed = try await connection.request(
                        "POST",
                        "/v1/releases",
                        headers: [Self.beta, ("Content-Type", "application/json")],
                        body: Array(try APIJSON.encoder.encode(commit))
                    )
                    #expect(committed.status == 201, "\(committed.bodyText)")
                }
                // Not vacuous: two collections finished after the beta commits.
                let runs = try await connection.metric("depot_collections_total")
                #expect(try await connection.waitForMetric("depot_collections_total", toReach: runs + 2))
                #expect(try await connection.request("GET", "/blobs/\(Fixture.sha256(one))").bodyText == "stable one\n")
                let back = try await connection.request("POST", "/v1/channels/stable/rollback", headers: [PublishToken.authorization])
                #expect(back.status == 200, "\(back.bodyText)")
                #expect(try await connection.request("GET", "/files/a.txt").bodyText == "stable one\n")
            }
        }
    }
}
