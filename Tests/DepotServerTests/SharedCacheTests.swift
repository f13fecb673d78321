import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// What a shared cache with its default configuration may do with the documents a fleet polls
/// (issue 60). bench-fleet found Varnish, as Debian installs it, sending every poll of a
/// million installs to the origin: the channel documents said `no-cache`, which its built-in
/// VCL (and RFC 9111) makes uncacheable; only the shipped nginx site, which ignores the field,
/// absorbed them.
@Suite("Channel documents in a shared cache")
struct SharedCacheTests {
    /// How long a shared cache may answer from a stored response without asking the origin, by
    /// RFC 9111 (`s-maxage`, else `max-age`; none with `no-cache`, `no-store` or `private`), as
    /// Varnish's built-in `vcl_beresp_cacheability` also decides; and whether a client's own
    /// cache must revalidate it at every use.
    static func freshness(_ cacheControl: String) -> (sharedSeconds: Int, clientRevalidates: Bool) {
        var directives: [String: String?] = [:]
        for part in cacheControl.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            directives[pair[0]] = pair.count > 1 ? pair[1] : .some(nil)
        }
        let seconds = { (name: String) in directives[name].flatMap { $0.flatMap { Int($0) } } }
        let barred = ["no-cache", "no-store", "private"].contains { directives[$0] != nil }
        let shared = barred ? 0 : max(seconds("s-maxage") ?? seconds("max-age") ?? 0, 0)
        let clientRevalidates = directives["no-cache"] != nil || directives["no-store"] != nil || seconds("max-age") == 0
        return (shared, clientRevalidates)
    }

    @Test(
        "the rule, as a table",
        arguments: [
            ("no-cache", 0, true),
            ("max-age=0, s-maxage=1", 1, true),
            ("public, max-age=31536000, immutable", 31_536_000, false),
            ("private, max-age=60", 0, false),
            ("max-age=0", 0, true),
            ("s-maxage=1, no-store", 0, true),
        ]
    )
    func rule(value: String, shared: Int, revalidates: Bool) {
        let freshness = Self.freshness(value)
        #expect(freshness.sharedSeconds == shared && freshness.clientRevalidates == revalidates, "\(value)")
    }

    @Test("a channel document and the manifest: a shared cache keeps each a second, a client revalidates every poll")
    func channelDocuments() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                #expect(try await connection.publish("a.txt", Data("one\n".utf8)).status == 201)
                for path in ["/channels/stable", "/manifest.json"] {
                    let answer = try await connection.request("GET", path)
                    let cacheControl = try #require(answer.header("Cache-Control"), "\(path)")
                    let freshness = Self.freshness(cacheControl)
                    #expect(freshness.sharedSeconds >= 1, "\(path): \(cacheControl)")
                    #expect(freshness.sharedSeconds <= 5, "a channel move must reach installs in seconds: \(cacheControl)")
                    #expect(freshness.clientRevalidates, "\(path): \(cacheControl)")
                }
            }
        }
    }

    @Test("a 404 is never kept by a shared cache: an object missing now may be there in a moment")
    func notFoundIsNotStored() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                let absent = String(repeating: "0", count: 64)
                for path in [
                    "/blobs/\(absent)", "/deltas/\(absent)/\(absent.dropLast())1", "/releases/\(absent)", "/channels/beta", "/no/such/route",
                ] {
                    let answer = try await connection.request("GET", path)
                    #expect(answer.status == 404, "\(path)")
                    #expect(answer.header("Cache-Control") == "no-store", "\(path): \(answer.header("Cache-Control") ?? "none")")
                }
            }
        }
    }
}
