import DepotDelta
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Patches between versions: made before a publish is committed, listed in the release,
/// served at `/deltas/{from}/{to}` and by RFC 3229 delta encoding on `/files/{path}`; in process
/// (the router and its responder). A 226's framing on the wire is the connection's: ConnectionStreamingTests.
@Suite("Deltas on the server")
struct DeltaServingTests {
    static let auth = PublishToken.authorization

    /// A catalog-like text file, and a version with a few records changed.
    static let version1 = Fixture.catalogVersion(1)
    static let version2 = Fixture.catalogEdited

    @Test("a publish makes a patch from the previous version; the manifest lists it and /deltas serves it")
    func patchIsMadeListedAndServed() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                let old = Fixture.sha256(Self.version1)
                let new = Fixture.sha256(Self.version2)
                #expect(
                    try await connection.request("PUT", "/v1/files/db/catalog.txt", headers: [Self.auth], body: Array(Self.version1)).status == 201
                )
                #expect(
                    try await connection.request("PUT", "/v1/files/db/catalog.txt", headers: [Self.auth], body: Array(Self.version2)).status == 201
                )
                let entry = try await connection.patchedEntry("db/catalog.txt")
                let deltas = try #require(entry["patches"] as? [[String: Any]])
                #expect(deltas.count == 1)
                let delta = try #require(deltas.first)
                #expect(delta["from"] as? String == old)

                let response = try await connection.request("GET", "/deltas/\(old)/\(new)")
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "application/gzip")
                #expect(response.header("Cache-Control") == "public, max-age=31536000, immutable")
                #expect(response.body.count == delta["size"] as? Int)
                #expect(Fixture.sha256(response.body) == delta["sha256"] as? String)
                // Far smaller than the gzip variant, and it rebuilds version 2 exactly.
                let gzipSize = try #require((entry["gzip"] as? [String: Any])?["size"] as? Int)
                #expect(response.body.count * 20 < gzipSize, "patch \(response.body.count) bytes, gzip \(gzipSize)")
                let patch = Array(try Fixture.gunzip(Array(response.body)))
                #expect(try VCDIFFDecoder.decode(patch, source: Array(Self.version1)) == Array(Self.version2))

                let range = try await connection.request("GET", "/deltas/\(old)/\(new)", headers: [("Range", "bytes=0-9")])
                #expect(range.status == 206 && range.body == Array(response.body.prefix(10)))
                // Back, as installs a rollback moves take it: made on request, and it rebuilds
                // version 1 exactly.
                let back = try await connection.request("GET", "/deltas/\(new)/\(old)")
                #expect(back.status == 200)
                #expect(try VCDIFFDecoder.decode(Array(try Fixture.gunzip(Array(back.body))), source: Array(Self.version2)) == Array(Self.version1))
            }
        }
    }

    @Test(
        "documents get patches only as a client asks for them: a release from its parent, a page from the parent's at its place; no other pair is made"
    )
    func documentPatchesOnlyFromTheParent() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                var releases: [(id: String, pages: [String])] = []
                for index in 0..<3 {
                    let body = Array("version \(index)\n".utf8)
                    #expect(try await connection.request("PUT", "/v1/files/file-\(index).txt", headers: [Self.auth], body: body).status == 201)
                    let url = try #require(try await connection.request("GET", "/channels/stable").json["url"] as? String)
                    let pages = try await connection.request("GET", url).json["pages"] as? [String] ?? []
                    releases.append((String(url.dropFirst("/releases/".count)), pages))
                }
                // The parent's patches are there at once, and make the documents.
                for (parent, child) in [(releases[0], releases[1]), (releases[1], releases[2])] {
                    let patch = try await connection.request("GET", "/deltas/\(parent.id)/\(child.id)")
                    #expect(patch.status == 200)
                    let parentDocument = try await connection.request("GET", "/releases/\(parent.id)").body
                    let made = try VCDIFFDecoder.decode(Array(try Fixture.gunzip(Array(patch.body))), source: Array(parentDocument))
                    #expect(Fixture.sha256(Data(made)) == child.id)
                    for (page, base) in zip(child.pages, parent.pages) where page != base {
                        #expect(try await connection.request("GET", "/deltas/\(base)/\(page)").status == 200)
                    }
                }
                // A pair no client asks for: a grandparent, backwards, a page of another place.
                for (from, to) in [(releases[0].id, releases[2].id), (releases[2].id, releases[1].id), (releases[0].id, releases[0].id)] {
                    let refused = try await connection.request("GET", "/deltas/\(from)/\(to)")
                    #expect(refused.status == 404, "\(from) → \(to)")
                }
            }
        }
    }

    @Test("RFC 3229: A-IM: vcdiff with the old ETag gets 226 IM Used; everything else is served as usual")
    func deltaEncoding() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                let old = "\"\(Fixture.sha256(Self.version1))\""
                let new = "\"\(Fixture.sha256(Self.version2))\""
                _ = try await connection.request("PUT", "/v1/files/catalog.txt", headers: [Self.auth], body: Array(Self.version1))
                _ = try await connection.request("PUT", "/v1/files/catalog.txt", headers: [Self.auth], body: Array(Self.version2))
                let entry = try await connection.patchedEntry("catalog.txt")
                let stored = try #require((entry["patches"] as? [[String: Any]])?.first)

                let delta = try await connection.request("GET", "/files/catalog.txt", headers: [("A-IM", "vcdiff"), ("If-None-Match", old)])
                #expect(delta.status == 226)
                #expect(delta.header("IM") == "vcdiff")
                #expect(delta.header("Delta-Base") == old)
                #expect(delta.header("ETag") == new)
                #expect(delta.header("Cache-Control") == "no-store, im")
                // Gunzipped as it is sent: its length unknown up front (sent chunked on a socket:
                // ConnectionStreamingTests).
                #expect(delta.header("Content-Length") == nil)
                #expect(try VCDIFFDecoder.decode(Array(delta.body), source: Array(Self.version1)) == Array(Self.version2))

                let gzip = try await connection.request("GET", "/files/catalog.txt", headers: [("A-IM", "vcdiff, gzip"), ("If-None-Match", old)])
                #expect(gzip.status == 226 && gzip.header("IM") == "vcdiff, gzip")
                #expect(Fixture.sha256(gzip.body) == stored["sha256"] as? String)

                let head = try await connection.request("HEAD", "/files/catalog.txt", headers: [("A-IM", "vcdiff"), ("If-None-Match", old)])
                #expect(head.status == 226 && head.body.isEmpty && head.header("Content-Length") == nil)
                #expect(gzip.header("Content-Length") == String(gzip.body.count))
                let gzipHead = try await connection.request(
                    "HEAD",
                    "/files/catalog.txt",
                    headers: [("A-IM", "vcdiff, gzip"), ("If-None-Match", old)]
                )
                #expect(gzipHead.status == 226 && gzipHead.header("Content-Length") == String(gzip.body.count))

                // The current tag: 304. No A-IM, an unknown base, a weak tag, vcdiff;q=0, a Range: 200/206.
                let current = try await connection.request("GET", "/files/catalog.txt", headers: [("A-IM", "vcdiff"), ("If-None-Match", new)])
                #expect(current.status == 304)
                let plain = try await connection.request("GET", "/files/catalog.txt", headers: [("If-None-Match", old)])
                #expect(plain.status == 200 && plain.body == Array(Self.version2))
                let unknown = "\"\(String(repeating: "0", count: 64))\""
                for headers in [
                    [("A-IM", "vcdiff"), ("If-None-Match", unknown)],
                    [("A-IM", "vcdiff"), ("If-None-Match", "W/\(old)")],
                    [("A-IM", "vcdiff;q=0"), ("If-None-Match", old)],
                    [("A-IM", "vcdiff")],
                ] {
                    let response = try await connection.request("GET", "/files/catalog.txt", headers: headers)
                    #expect(response.status == 200 && response.body == Array(Self.version2), "\(headers)")
                }
                let ranged = try await connection.request(
                    "GET",
                    "/files/catalog.txt",
                    headers: [("A-IM", "vcdiff"), ("If-None-Match", old), ("Range", "bytes=0-3")]
                )
                #expect(ranged.status == 206)
            }
        }
    }

    @Test("a content under deltas.patchMinimumBytes gets no patch, however well it would patch", arguments: [4096, 0])
    func smallContentGetsNoPatch(minimum: Int64) async throws {
        let configuration = ServerConfiguration(publish: .init(deltas: DeltaConfiguration(patchMinimumBytes: minimum)))
        // 3,000 bytes of text, and a version with one character changed: a patch of a few
        // dozen bytes, which no request for it could repay below the minimum.
        let old = Data((0..<150).map { "record \($0 % 10)\t\($0)\n" }.joined().utf8).prefix(3_000)
        var edited = old
        edited[100] = UInt8(ascii: "X")
        let new = edited
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await server.connection { connection in
                #expect(try await connection.request("PUT", "/v1/files/small.txt", headers: [Self.auth], body: Array(old)).status == 201)
                #expect(try await connection.request("PUT", "/v1/files/small.txt", headers: [Self.auth], body: Array(new)).status == 201)
                let entry = try #require(try await connection.releaseFiles().first)
                #expect((entry["patches"] != nil) == (minimum == 0))
                let served = try await connection.request("GET", "/deltas/\(Fixture.sha256(old))/\(Fixture.sha256(new))").status
                #expect(served == (minimum == 0 ? 200 : 404))
            }
        }
    }

    @Test("a patch not clearly smaller than the full download is not kept")
    func uselessPatchIsNotKept() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                _ = try await connection.request(
                    "PUT",
                    "/v1/files/noise.bin",
                    headers: [Self.auth],
                    body: Array(Fixture.pseudoRandom(count: 100_000, seed: 3))
                )
                _ = try await connection.request(
                    "PUT",
                    "/v1/files/noise.bin",
                    headers: [Self.auth],
                    body: Array(Fixture.pseudoRandom(count: 100_000, seed: 5))
                )
                _ = try await connection.request("PUT", "/v1/files/catalog.txt", headers: [Self.auth], body: Array(Self.version1))
                _ = try await connection.request("PUT", "/v1/files/catalog.txt", headers: [Self.auth], body: Array(Self.version2))
                _ = try await connection.patchedEntry("catalog.txt")
                let files = try await connection.releaseFiles()
                let noise = try #require(files.first { $0["path"] as? String == "noise.bin" })
                #expect(noise["patches"] == nil)
            }
        }
    }

    @Test("a patch from any earlier version is made on the first request, once for many clients; other pairs get 404")
    func patchOnRequest() async throws {
        let distances = DeltaConfiguration(distances: [1])
        try await InProcessServer.withPublishing(configuration: .init(publish: .init(deltas: distances))) { server in
            let versions = (1...4).map { Fixture.sha256(Fixture.catalogVersion($0)) }
            try await server.connection { connection in
                for number in 1...4 {
                    let reply = try await connection.request(
                        "PUT",
                        "/v1/files/catalog.txt",
                        headers: [Self.auth],
                        body: Array(Fixture.catalogVersion(number))
                    )
                    #expect(reply.status == 201)
                }
                // The publish made the patch at distance 1 only.
                let entry = try await connection.patchedEntry("catalog.txt")
                #expect((entry["patches"] as? [[String: Any]])?.compactMap { $0["from"] as? String } == [versions[2]])
            }
            // Eight clients three releases behind at once: one encoding, one answer for all.
            let bodies = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await server.connection { connection in
                            let reply = try await connection.request("GET", "/deltas/\(versions[0])/\(versions[3])")
                            return (reply.status, Array(reply.body))
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(bodies.allSatisfy { $0.0 == 200 && $0.1 == bodies[0].1 })
            let patch = Array(try Fixture.gunzip(bodies[0].1))
            #expect(try VCDIFFDecoder.decode(patch, source: Array(Fixture.catalogVersion(1))) == Array(Fixture.catalogVersion(4)))
            #expect(server.requests.total(pathPrefix: "/deltas/") == 8)
            try await server.connection { connection in
                for (why, path) in [
                    ("no version of the path", "/deltas/\(String(repeating: "a", count: 64))/\(versions[3])"),
                    ("the same content", "/deltas/\(versions[3])/\(versions[3])"),
                    ("not a SHA-256", "/deltas/abc/\(versions[3])"),
                ] {
                    #expect(try await connection.request("GET", path).status == 404, "\(why)")
                }
                // Encoded once, then served as any stored patch.
                let again = try await connection.request("GET", "/deltas/\(versions[0])/\(versions[3])")
                #expect(again.status == 200 && Array(again.body) == bodies[0].1)
                #expect(try await connection.metric(#"depot_patches_encoded_total{when="request"}"#) == 1)
                #expect(try await connection.metric(#"depot_patches_encoded_total{when="publish"}"#) == 3)
            }
        }
    }

    @Test("with deltas.onRequest off, an unlisted pair is 404")
    func noPatchOnRequest() async throws {
        let configuration = ServerConfiguration(publish: .init(deltas: DeltaConfiguration(distances: [1], onRequest: false)))
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await server.connection { connection in
                for number in 1...3 {
                    _ = try await connection.request(
                        "PUT",
                        "/v1/files/catalog.txt",
                        headers: [Self.auth],
                        body: Array(Fixture.catalogVersion(number))
                    )
                }
                let path = "/deltas/\(Fixture.sha256(Fixture.catalogVersion(1)))/\(Fixture.sha256(Fixture.catalogVersion(3)))"
                #expect(try await connection.request("GET", path).status == 404)
            }
        }
    }
}
