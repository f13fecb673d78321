import DepotCodecs
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Brotli and zstd variants (issue 45): made at publish, listed by the release beside gzip's,
/// served at their own URLs, and negotiated on `/files/…` (RFC 9110 §12.5.3) with ranges,
/// `If-Range` and 304s on each, in process; curl and REDbot judge them over a socket
/// (RealClientTests).
@Suite("Brotli and zstd variants")
struct VariantServingTests {
    static let catalog = Fixture.catalogRows

    /// What the reference tool (`brotli -d`, `zstd -d`, `gzip -d`) decodes `bytes` to.
    static func decodedByTool(_ tool: String, _ bytes: [UInt8]) async throws -> Data {
        try await withTemporaryDirectory { folder in
            let file = try folder.write(Data(bytes), to: "encoded")
            return try await ChildProcess.run(tool, ["-d", "-c", file.path]).standardOutput
        }
    }

    static let tools = ["br": "brotli", "zstd": "zstd", "gzip": "gzip"]

    @Test("a publish makes the variants, lists each with its size and SHA-256, and serves it at /blobs/{sha256}.br and .zst")
    func listedAndServed() async throws {
        try await InProcessServer.withVariants { _, connection in
            let entry = try await connection.publishedEntry("db/catalog.sqlite", Self.catalog)
            let sha256 = try #require(entry["sha256"] as? String)
            let gzipSize = try #require((entry["gzip"] as? [String: Any])?["size"] as? Int)
            for (key, suffix, coding, type) in [("brotli", "br", "br", "application/octet-stream"), ("zstd", "zst", "zstd", "application/zstd")] {
                let variant = try #require(entry[key] as? [String: Any], "\(key) listed")
                let size = try #require(variant["size"] as? Int)
                #expect(Double(size) <= Double(gzipSize) * 0.97, "\(key) saves 3% against gzip")
                let response = try await connection.request("GET", "/blobs/\(sha256).\(suffix)")
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == type)
                #expect(response.header("Content-Encoding") == nil, "the variant's own URL serves its bytes as they are")
                #expect(response.header("Cache-Control") == "public, max-age=31536000, immutable")
                #expect(response.body.count == size)
                #expect(Fixture.sha256(response.body) == variant["sha256"] as? String)
                #expect(try await Self.decodedByTool(Self.tools[coding]!, response.body) == Self.catalog)
            }
        }
    }

    @Test("no variant for content too small or that does not save the margin; no URL either")
    func notKept() async throws {
        try await InProcessServer.withVariants { _, connection in
            for (path, data) in [("small.txt", Fixture.text), ("noise.bin", Fixture.pseudoRandom(count: 300_000, seed: 7))] {
                let entry = try await connection.publishedEntry(path, data)
                #expect(entry["brotli"] == nil && entry["zstd"] == nil, "\(path)")
                let sha256 = try #require(entry["sha256"] as? String)
                #expect(try await connection.request("GET", "/blobs/\(sha256).br").status == 404)
                #expect(try await connection.request("GET", "/blobs/\(sha256).zst").status == 404)
            }
        }
    }

    @Test("variants off: none made, gzip alone negotiated")
    func turnedOff() async throws {
        try await InProcessServer.withVariants(.init(brotli: nil, zstd: .init(level: 3, longWindow: nil), minimumSavings: 0.99)) { _, connection in
            let entry = try await connection.publishedEntry("db/catalog.sqlite", Self.catalog)
            #expect(entry["brotli"] == nil && entry["zstd"] == nil)
            let response = try await connection.request("GET", "/files/db/catalog.sqlite", headers: [("Accept-Encoding", "br, zstd, gzip")])
            #expect(response.header("Content-Encoding") == "gzip")
        }
    }

    /// (Accept-Encoding, the codings it may choose (the smallest of them when several), the
    /// RFC 9110 text it follows).
    static let negotiationCases: [(String?, Set<String>, String)] = [
        (nil, ["identity"], "§12.5.3: no field, any coding, and identity is what every client reads"),
        ("br", ["br"], "RFC 7932: br"),
        ("zstd", ["zstd"], "RFC 8878 §7.2: zstd"),
        ("gzip", ["gzip"], "§8.4.1.3: gzip"),
        ("x-gzip", ["gzip"], "§8.4.1.3: x-gzip is gzip"),
        ("br;q=0, zstd, gzip", ["zstd"], "§12.4.2: q=0 is not acceptable"),
        ("gzip;q=1, br;q=0.5, zstd;q=0.5", ["gzip"], "§12.4.2: the highest weight"),
        ("br;q=0.8, zstd;q=0.8, gzip", ["gzip"], "§12.4.2: the highest weight, whatever the size"),
        ("br, zstd, gzip", ["br", "zstd"], "§12.5.3: equal weights, the server's choice (the smallest)"),
        ("*", ["br", "zstd"], "§12.5.3: * matches every coding not listed"),
        ("gzip, *;q=0", ["gzip"], "§12.5.3: * with q=0 excludes the others"),
        ("identity;q=0, gzip", ["gzip"], "§12.5.3: identity refused, a coding acceptable"),
        ("identity;q=0", ["identity"], "§12.5.3: nothing acceptable, and RFC 9110 sends identity rather than 406"),
        ("compress, deflate", ["identity"], "§12.5.3: unknown and unstored codings are ignored"),
        ("", ["identity"], "§12.5.3: an empty field wants no coding"),
        ("identity, br;q=0.5", ["identity"], "§12.5.3: identity weighed higher"),
    ]

    @Test("/files/… negotiates br, zstd, gzip and identity, each with its own strong ETag and Vary", arguments: Self.negotiationCases.indices)
    func negotiation(index: Int) async throws {
        let (acceptEncoding, allowed, why) = Self.negotiationCases[index]
        try await InProcessServer.withVariants { _, connection in
            let entry = try await connection.publishedEntry("db/catalog.sqlite", Self.catalog)
            let tags: [String: (sha256: String, size: Int)] = try [
                "identity": (entry["sha256"] as? String ?? "", Self.catalog.count),
                "gzip": Self.listed(entry["gzip"]), "br": Self.listed(entry["brotli"]), "zstd": Self.listed(entry["zstd"]),
            ]
            let expected = allowed.min { tags[$0]!.size < tags[$1]!.size }!
            let response = try await connection.request(
                "GET",
                "/files/db/catalog.sqlite",
                headers: acceptEncoding.map { [("Accept-Encoding", $0)] } ?? []
            )
            #expect(response.status == 200, "\(why)")
            #expect(response.header("Content-Encoding") == (expected == "identity" ? nil : expected), "\(why)")
            #expect(response.header("ETag") == "\"\(tags[expected]!.sha256)\"", "\(why)")
            #expect(response.header("Vary") == "Accept-Encoding", "\(why)")
            #expect(response.body.count == tags[expected]!.size, "\(why)")
            let decoded = expected == "identity" ? Data(response.body) : try await Self.decodedByTool(Self.tools[expected]!, response.body)
            #expect(decoded == Self.catalog, "\(why)")
        }
    }

    static func listed(_ variant: Any?) throws -> (sha256: String, size: Int) {
        let variant = try #require(variant as? [String: Any])
        return (try #require(variant["sha256"] as? String), try #require(variant["size"] as? Int))
    }

    @Test("ranges, If-Range, If-None-Match and HEAD work on each variant as on gzip", arguments: ["br", "zstd", "gzip"])
    func conditionalsAndRanges(coding: String) async throws {
        try await InProcessServer.withVariants { _, connection in
            let entry = try await connection.publishedEntry("db/catalog.sqlite", Self.catalog)
            let key = ["br": "brotli", "zstd": "zstd", "gzip": "gzip"][coding]!
            let (sha256, size) = try Self.listed(entry[key])
            let variant = try await connection.request("GET", "/files/db/catalog.sqlite", headers: [("Accept-Encoding", coding)]).body
            let tag = "\"\(sha256)\""
            let other = "\"\(entry["sha256"] as? String ?? "")\""
            let accept = ("Accept-Encoding", coding)

            let range = try await connection.request("GET", "/files/db/catalog.sqlite", headers: [accept, ("Range", "bytes=10-109")])
            #expect(range.status == 206)
            #expect(range.header("Content-Range") == "bytes 10-109/\(size)")
            #expect(range.header("Content-Encoding") == coding)
            #expect(range.header("ETag") == tag)
            #expect(range.body == Array(variant[10...109]))

            let resumed = try await connection.request(
                "GET",
                "/files/db/catalog.sqlite",
                headers: [accept, ("Range", "bytes=100-"), ("If-Range", tag)]
            )
            #expect(resumed.status == 206 && resumed.body == Array(variant[100...]))
            let stale = try await connection.request(
                "GET",
                "/files/db/catalog.sqlite",
                headers: [accept, ("Range", "bytes=100-"), ("If-Range", other)]
            )
            #expect(stale.status == 200 && stale.body == variant, "another variant's ETag: the whole representation")
            // A date names no one representation of a resource with variants: the whole answer,
            // whichever is negotiated (issue 57, defect 11).
            let date = try #require(range.header("Last-Modified"))
            for encoding in [coding, "identity"] {
                let dated = try await connection.request(
                    "GET",
                    "/files/db/catalog.sqlite",
                    headers: [("Accept-Encoding", encoding), ("Range", "bytes=100-"), ("If-Range", date)]
                )
                #expect(dated.status == 200, "\(encoding): If-Range with a date")
            }

            let multipart = try await connection.request("GET", "/files/db/catalog.sqlite", headers: [accept, ("Range", "bytes=0-9,20-29")])
            #expect(multipart.status == 206)
            #expect(multipart.header("Content-Type")?.hasPrefix("multipart/byteranges; boundary=") == true)

            let unsatisfiable = try await connection.request("GET", "/files/db/catalog.sqlite", headers: [accept, ("Range", "bytes=\(size)-")])
            #expect(unsatisfiable.status == 416 && unsatisfiable.header("Content-Range") == "bytes */\(size)")

            let notModified = try await connection.request("GET", "/files/db/catalog.sqlite", headers: [accept, ("If-None-Match", tag)])
            #expect(notModified.status == 304)
            #expect(notModified.header("ETag") == tag && notModified.header("Vary") == "Accept-Encoding")
            let changed = try await connection.request("GET", "/files/db/catalog.sqlite", headers: [accept, ("If-None-Match", other)])
            #expect(changed.status == 200, "the identity's ETag does not match this variant")

            let head = try await connection.request("HEAD", "/files/db/catalog.sqlite", headers: [accept])
            #expect(
                head.status == 200 && head.header("Content-Length") == "\(size)" && head.header("Content-Encoding") == coding && head.body.isEmpty
            )
        }
    }

    static func writeCatalog(to folder: URL) throws {
        try folder.write(Self.catalog, to: "catalog.txt")
    }

    @Test("the public folder's large files get variants too: / negotiates them once made, gzip until then")
    func publicFolder() async throws {
        var configuration = ServerConfiguration()
        configuration.variants = .quickTest
        try await InProcessServer.with(configuration: configuration, prepare: Self.writeCatalog) { server in
            try await server.connection { connection in
                // Hang guard: slowest seen 0.85 s under two busy loops (the whole test).
                let encoded = try await poll(for: .seconds(60)) { () -> RawHTTPResponse? in
                    let response = try await connection.request("GET", "/catalog.txt", headers: [("Accept-Encoding", "br, gzip")])
                    return response.header("Content-Encoding") == "br" ? response : nil
                }
                let response = try #require(encoded, "brotli is served once made")
                #expect(response.header("Vary") == "Accept-Encoding")
                #expect(response.header("ETag") == "\"\(Fixture.sha256(response.body))\"")
                #expect(try await Self.decodedByTool("brotli", response.body) == Self.catalog)
                let zstd = try await connection.request("GET", "/catalog.txt", headers: [("Accept-Encoding", "zstd")])
                #expect(zstd.header("Content-Encoding") == "zstd")
                #expect(try await Self.decodedByTool("zstd", zstd.body) == Self.catalog)
            }
        }
    }
}
