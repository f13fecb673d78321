import Foundation
import Testing

@testable import DepotClient

/// Server URLs, the one rule (``ServerURL``): a path without its trailing slash is a folder.
@Suite("Server URLs")
struct ServerURLTests {
    @Test(
        "a server URL's path ends in a slash, so that the tree resolves below it",
        arguments: [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080/"),
            ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/"),
            ("http://s3.local:9000/bucket", "http://s3.local:9000/bucket/"),
            ("http://s3.local:9000/bucket/prefix", "http://s3.local:9000/bucket/prefix/"),
            ("http://s3.local:9000/bucket/prefix/", "http://s3.local:9000/bucket/prefix/"),
            ("https://user:secret@cdn.example.com/app%20data", "https://user:secret@cdn.example.com/app%20data/"),
            ("https://cdn.example.com/a/b/c?x=1", "https://cdn.example.com/a/b/c/?x=1"),
        ]
    )
    func base(given: String, expected: String) throws {
        let url = try #require(URL(string: given))
        #expect(ServerURL.base(url).absoluteString == expected)
        let client = DepotClient(servers: [url, url], directory: URL(fileURLWithPath: "/nonexistent"))
        #expect(client.servers.map(\.absoluteString) == [expected, expected])
    }

    @Test("the tree's URLs resolve below a server with a path and no trailing slash: the S3 path-style bucket")
    func resolution() throws {
        let client = DepotClient(server: try #require(URL(string: "http://s3.local:9000/bucket/prefix")), directory: URL(fileURLWithPath: "/x"))
        #expect(try OriginPolicy.url("/blobs/ab/cd", below: client.server).absoluteString == "http://s3.local:9000/bucket/prefix/blobs/ab/cd")
        #expect(client.server.appendingPathComponent("channels/stable").absoluteString == "http://s3.local:9000/bucket/prefix/channels/stable")
    }

    @Test("the report server named is taken the same way")
    func reportServer() throws {
        let named = try #require(URL(string: "https://origin.example.com/depot"))
        let servers = [try #require(URL(string: "https://m1/")), try #require(URL(string: "https://m2/"))]
        #expect(ReportDestination.choose(named: named, servers: servers) == .server(try #require(URL(string: "https://origin.example.com/depot/"))))
    }
}
