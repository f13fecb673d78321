import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Prometheus text at /metrics, read in process (the router's counts; no socket). Who may read
/// it, by address or token, is ServerHardeningTests' (over a socket).
@Suite("Metrics")
struct MetricsTests {
    static let auth = PublishToken.authorization
    /// The metrics token: an in-process request has no address for the allow-list.
    static let metricsToken = "metrics-secret"
    static let metricsAuth = ("Authorization", "Bearer \(metricsToken)")

    @Test("requests by route and status (304, 206, 416), bytes sent, publishes and their duration")
    func series() async throws {
        try await InProcessServer.withPublishing(configuration: .init(metricsToken: Self.metricsToken)) { server in
            try await server.connection { connection in
                let published = try await connection.request("PUT", "/v1/files/a.bin", headers: [Self.auth], body: Array(Fixture.noise))
                let etag = try published.decoded(PublishReply.self).etag
                _ = try await connection.request("GET", "/files/a.bin", headers: [("If-None-Match", etag)])
                _ = try await connection.request("GET", "/files/a.bin", headers: [("Range", "bytes=0-9")])
                _ = try await connection.request("GET", "/files/a.bin", headers: [("Range", "bytes=999999-")])
                _ = try await connection.request("GET", "/files/a.bin")
                let text = try await connection.request("GET", "/metrics", headers: [Self.metricsAuth])
                #expect(text.status == 200)
                #expect(text.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
                let body = text.bodyText
                for status in ["304", "206", "416", "200"] {
                    #expect(body.contains(#"depot_http_requests_total{route="/files/**",method="GET",status="\#(status)"} 1"#), "\(status)")
                }
                #expect(body.contains(#"depot_http_requests_total{route="/v1/files/**",method="PUT",status="201"} 1"#))
                #expect(body.contains(#"depot_http_response_bytes_total{route="/files/**"} \#(Fixture.noise.count + 10)"#))
                #expect(body.contains(#"depot_publishes_total{result="published"} 1"#))
                #expect(body.contains("depot_publish_duration_seconds_count 1"))
                #expect(body.contains("depot_delta_bytes_saved_total 0"))
            }
        }
    }

    @Test("patches count the bytes they save; public files count as route public; unknown methods as OTHER")
    func deltaSavingsAndLabels() async throws {
        let version1 = Data((0..<20_000).map { "\($0)\titem-\($0 * 7919 % 10007)\n" }.joined().utf8)
        var edited = version1
        edited[100] = UInt8(ascii: "X")
        let version2 = edited
        let prepare: (URL) throws -> Void = { try $0.write(Data("hello\n".utf8), to: "hello.txt") }
        try await InProcessServer.withPublishing(configuration: .init(metricsToken: Self.metricsToken), prepare: prepare) { server in
            try await server.connection { connection in
                _ = try await connection.request("PUT", "/v1/files/c.txt", headers: [Self.auth], body: Array(version1))
                let published = try await connection.request("PUT", "/v1/files/c.txt", headers: [Self.auth], body: Array(version2))
                let gzipSize = Int(try #require(try published.decoded(PublishReply.self).gzipSize))
                var patch: (url: String, size: Int)?
                for _ in 0..<1_200 where patch == nil {
                    let files = try await connection.releaseFiles()
                    if let delta = (files.first?["patches"] as? [[String: Any]])?.first, let to = files.first?["sha256"] as? String {
                        patch = ("/deltas/\(delta["from"] as? String ?? "")/\(to)", delta["size"] as? Int ?? 0)
                    } else {
                        try await Task.sleep(for: .milliseconds(100))
                    }
                }
                let (url, size) = try #require(patch)
                #expect(try await connection.request("GET", url).status == 200)
                #expect(try await connection.request("GET", "/hello.txt").status == 200)
                _ = try await connection.request("PROPFIND", "/hello.txt")
                let body = try await connection.request("GET", "/metrics", headers: [Self.metricsAuth]).bodyText
                #expect(body.contains("depot_delta_bytes_saved_total \(gzipSize - size)"), "gzip \(gzipSize), patch \(size)")
                #expect(body.contains(#"depot_http_requests_total{route="public",method="GET",status="200"} 1"#))
                #expect(body.contains(#"method="OTHER""#))
            }
        }
    }
}
