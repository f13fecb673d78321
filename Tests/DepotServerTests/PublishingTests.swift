import DepotAPI
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Publishing: `PUT /v1/files/{path}`, what the manifest, `/files`, sidecars and `/blobs` then
/// serve, and every refusal: in process, through the router (what the direct path answers on a
/// socket is the same ResourceAnswer, tested over one in DirectResponderTests).
@Suite("Publishing")
struct PublishingTests {
    static let auth = PublishToken.authorization
    static let catalogDB = Data(Fixture.text + Fixture.noise.prefix(50_000))

    /// What `md5sum` or `sha256sum` print for `data`.
    static func digestTool(_ tool: String, _ data: Data) async throws -> String {
        try await withTemporaryDirectory { folder in
            let file = try folder.write(data, to: "file")
            let output = try await ChildProcess.run(tool, [file.path]).standardOutput
            return String(String(decoding: output, as: UTF8.self).prefix { $0 != " " })
        }
    }

    @Test("a published file appears in the release with the digests md5sum and sha256sum print")
    func publishAndManifest() async throws {
        let sha256 = try await Self.digestTool("sha256sum", Self.catalogDB)
        let md5 = try await Self.digestTool("md5sum", Self.catalogDB)
        try await InProcessConnection.withPublishing { connection in
            let before = try await ClientManifest.read(&connection)
            let reply = try await connection.publish("db/catalog.sqlite", Self.catalogDB)
            #expect(reply.status == 201)
            #expect(reply.header("Location") == "/files/db/catalog.sqlite")
            let published = try reply.decoded(PublishReply.self)
            #expect(published.sha256 == sha256)
            #expect(published.md5 == md5)
            #expect(published.version == 1)
            #expect(published.size == Int64(Self.catalogDB.count))
            #expect(published.etag == "\"\(sha256)\"")

            let manifest = try await ClientManifest.read(&connection)
            #expect((manifest["serial"] as? Int ?? 0) > (before["serial"] as? Int ?? 0))
            let entry = try #require(ClientManifest.entries(manifest).first)
            #expect(entry["path"] as? String == "db/catalog.sqlite")
            #expect(entry["sha256"] as? String == sha256)
            #expect(entry["md5"] as? String == md5)
            #expect(entry["size"] as? Int == Self.catalogDB.count)
            #expect(entry["contentType"] as? String == "application/octet-stream")
            let gzip = try #require(entry["gzip"] as? [String: Any])

            // The gzip variant gunzips to the same bytes, and its digest is the manifest's.
            let gzipBlob = try await connection.request("GET", "/blobs/\(sha256).gz")
            #expect(gzipBlob.status == 200)
            #expect(gzipBlob.header("Content-Type") == "application/gzip")
            #expect(gzipBlob.header("Content-Encoding") == nil)
            #expect(gzipBlob.header("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(gzipBlob.body.count == gzip["size"] as? Int)
            #expect(Fixture.sha256(gzipBlob.body) == gzip["sha256"] as? String)
            #expect(try Fixture.gunzip(gzipBlob.body) == Self.catalogDB)
        }
    }

    @Test("/files, /blobs and the sidecars serve the published bytes with the right fields")
    func serving() async throws {
        let sha256 = Fixture.sha256(Self.catalogDB)
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                _ = try await connection.publish("db/catalog.sqlite", Self.catalogDB)
                let lastModified = try #require(ClientManifest.entries(try await ClientManifest.read(&connection)).first?["lastModified"] as? String)

                let file = try await connection.request("GET", "/files/db/catalog.sqlite")
                #expect(file.status == 200)
                #expect(Data(file.body) == Self.catalogDB)
                #expect(file.header("ETag") == "\"\(sha256)\"")
                #expect(file.header("Last-Modified") == lastModified)
                #expect(file.header("Cache-Control") == "no-cache")
                #expect(file.header("Vary") == "Accept-Encoding")
                #expect(file.header("Repr-Digest") == "sha-256=:\(Data(Fixture.sha256Bytes(Self.catalogDB)).base64EncodedString()):")

                let gzip = try await connection.request("GET", "/files/db/catalog.sqlite", headers: [("Accept-Encoding", "gzip")])
                #expect(gzip.header("Content-Encoding") == "gzip")
                #expect(try Fixture.gunzip(gzip.body) == Self.catalogDB)
                #expect(gzip.header("Repr-Digest") == "sha-256=:\(Data(Fixture.sha256Bytes(gzip.body)).base64EncodedString()):")

                let notModified = try await connection.request("GET", "/files/db/catalog.sqlite", headers: [("If-None-Match", "\"\(sha256)\"")])
                #expect(notModified.status == 304)
                let range = try await connection.request("GET", "/files/db/catalog.sqlite", headers: [("Range", "bytes=-16")])
                #expect(range.status == 206)
                #expect(Data(range.body) == Self.catalogDB.suffix(16))

                let blob = try await connection.request("GET", "/blobs/\(sha256)")
                #expect(Data(blob.body) == Self.catalogDB)
                #expect(blob.header("Cache-Control") == "public, max-age=31536000, immutable")
                #expect(blob.header("Vary") == nil)

                #expect(try await connection.request("GET", "/files/db/catalog.sqlite.sha256").bodyText == "\(sha256)\n")
                #expect(try await connection.request("GET", "/files/db/catalog.sqlite.md5").bodyText == "\(Fixture.md5(Self.catalogDB))\n")
                #expect(try await connection.request("GET", "/files/db/missing").status == 404)
                #expect(try await connection.request("GET", "/blobs/\(String(repeating: "0", count: 64))").status == 404)
                let post = try await connection.request("POST", "/files/db/catalog.sqlite", headers: [("Content-Length", "0")])
                #expect(post.status == 405)
                #expect(post.header("Allow") == "GET, HEAD")
            }
        }
    }

    @Test("the manifest is one small 304 when nothing changed, and a new ETag after a publish")
    func manifestPolling() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.connection { connection in
                _ = try await connection.publish("a.txt", Data("one\n".utf8))
                let first = try await connection.request("GET", "/manifest.json")
                #expect(first.header("Cache-Control") == PublishedContent.CachePolicy().channels)
                #expect(first.header("Content-Type") == "application/json")
                let etag = try #require(first.header("ETag"))
                let poll = try await connection.request("GET", "/manifest.json", headers: [("If-None-Match", etag)])
                #expect(poll.status == 304)
                #expect(poll.body.isEmpty)

                let unchanged = try await connection.publish("a.txt", Data("one\n".utf8))
                #expect(unchanged.status == 200)
                #expect(try unchanged.decoded(PublishReply.self).unchanged)
                #expect(try await connection.request("GET", "/manifest.json", headers: [("If-None-Match", etag)]).status == 304)

                _ = try await connection.publish("a.txt", Data("two\n".utf8))
                let changed = try await connection.request("GET", "/manifest.json", headers: [("If-None-Match", etag)])
                #expect(changed.status == 200)
                #expect(changed.header("ETag") != etag)
                #expect(ClientManifest.entries(try await ClientManifest.read(&connection)).first?["version"] as? Int == 2)
                #expect(try await connection.request("GET", "/files/a.txt").bodyText == "two\n")
            }
        }
    }

    @Test("DELETE unpublishes")
    func unpublish() async throws {
        try await InProcessConnection.withPublishing { connection in
            _ = try await connection.publish("gone.txt", Data("bye\n".utf8))
            let deleted = try await connection.request("DELETE", "/v1/files/gone.txt", headers: [Self.auth])
            #expect(deleted.status == 204)
            #expect(ClientManifest.entries(try await ClientManifest.read(&connection)).isEmpty)
            #expect(try await connection.request("GET", "/files/gone.txt").status == 404)
            #expect(try await connection.request("DELETE", "/v1/files/gone.txt", headers: [Self.auth]).status == 404)
        }
    }

    @Test("client digests are checked: a match publishes, a mismatch or a malformed field is 400 and publishes nothing")
    func clientDigests() async throws {
        let data = Data("digest me\n".utf8)
        let md5 = Data(Fixture.md5Bytes(data)).base64EncodedString()
        let sha = Data(Fixture.sha256Bytes(data)).base64EncodedString()
        try await InProcessConnection.withPublishing { connection in
            let good = try await connection.publish(
                "d.txt",
                data,
                headers: [Self.auth, ("Content-MD5", md5), ("Repr-Digest", "sha-256=:\(sha):")]
            )
            #expect(good.status == 201)
            let serial = try await ClientManifest.read(&connection)["serial"] as? Int

            let cases: [(String, String)] = [
                ("Content-MD5", Data(Fixture.md5Bytes(Data("other".utf8))).base64EncodedString()),
                ("Repr-Digest", "sha-256=:\(Data(Fixture.sha256Bytes(Data("other".utf8))).base64EncodedString()):"),
                ("Content-MD5", "not base64!"),
                ("Repr-Digest", "sha-256=garbage"),
            ]
            for (name, value) in cases {
                let bad = try await connection.publish("d.txt", Data("changed\n".utf8), headers: [Self.auth, (name, value)])
                #expect(bad.status == 400, "\(name): \(value)")
                #expect(bad.bodyText.contains("error"))
            }
            #expect(try await ClientManifest.read(&connection)["serial"] as? Int == serial)
            #expect(try await connection.request("GET", "/files/d.txt").bodyText == "digest me\n")
        }
    }

    @Test("a missing or wrong token is 401 with WWW-Authenticate: Bearer")
    func authentication() async throws {
        try await InProcessConnection.withPublishing { connection in
            // With the dashboard off, Basic credentials are refused even with the right token,
            // and no challenge invites a browser to send them.
            let rightBasic = "Basic " + Data("user:\(PublishToken.secret)".utf8).base64EncodedString()
            for headers in [[], [("Authorization", "Bearer wrong")], [("Authorization", "Basic dXNlcjpwYXNz")], [("Authorization", rightBasic)]] {
                let response = try await connection.publish("x.txt", Data("x".utf8), headers: headers)
                #expect(response.status == 401)
                #expect(response.headers("WWW-Authenticate").map { $0.prefix(6) } == ["Bearer"])
                #expect(!response.bodyText.contains(PublishToken.secret))
            }
            #expect(ClientManifest.entries(try await ClientManifest.read(&connection)).isEmpty)
        }
    }

    @Test("with the dashboard on, the token also works as a Basic password, and a Basic write needs X-Requested-With")
    func basicCredentialsWithDashboard() async throws {
        let configuration = ServerConfiguration(dashboard: DashboardConfiguration(enabled: true))
        let basic = ("Authorization", "Basic " + Data("anyone:\(PublishToken.secret)".utf8).base64EncodedString())
        try await InProcessConnection.withPublishing(configuration: configuration) { connection in
            let refused = try await connection.publish("x.txt", Data("x".utf8), headers: [])
            #expect(refused.status == 401)
            #expect(refused.headers("WWW-Authenticate").map { $0.prefix(6) } == ["Bearer", "Basic "])
            let forged = try await connection.publish("x.txt", Data("x".utf8), headers: [basic])
            #expect(forged.status == 403)
            #expect(ClientManifest.entries(try await ClientManifest.read(&connection)).isEmpty)
            let sent = try await connection.publish("x.txt", Data("x".utf8), headers: [basic, ("X-Requested-With", "fetch")])
            #expect(sent.status == 201)
        }
    }

    @Test("the dashboard's \"changes\" link compares a release with its parent, not with the one numbered one lower")
    func changesAgainstParent() async throws {
        let configuration = ServerConfiguration(dashboard: DashboardConfiguration(enabled: true))
        try await InProcessConnection.withPublishing(configuration: configuration) { connection in
            for content in ["one\n", "two\n"] { #expect(try await connection.publish("a.txt", Data(content.utf8)).status == 201) }
            let promoted = try await connection.request(
                "POST",
                "/v1/channels/beta/promote",
                headers: [Self.auth],
                body: Array(#"{"release": "1"}"#.utf8)
            )
            #expect(promoted.status == 200, "\(promoted.bodyText)")
            let three = Data("three\n".utf8)
            #expect(try await connection.request("PUT", "/v1/blobs/\(Fixture.sha256(three))", headers: [Self.auth], body: Array(three)).status == 201)
            let commit = #"{"channel": "beta", "files": [{"path": "a.txt", "sha256": "\#(Fixture.sha256(three))"}]}"#
            #expect(try await connection.request("POST", "/v1/releases", headers: [Self.auth], body: Array(commit.utf8)).status == 201)
            let releases = try await connection.request("GET", "/v1/releases", headers: [Self.auth]).decoded(ReleaseList.self).releases
            let one = try #require(releases.first { $0.number == 1 })
            let page = try await connection.request("GET", "/dashboard/", headers: [Self.auth])
            // Release 3 was made on beta from release 1: its changes are against release 1.
            #expect(page.bodyText.contains("/dashboard/diff?from=\(one.id)&amp;to=3"), "\(page.bodyText)")
            #expect(!page.bodyText.contains("/dashboard/diff?from=2&amp;to=3"))
        }
    }

    @Test("an unknown release or a missing path on a dashboard page is a page that says so, with its status, not raw JSON")
    func dashboardRefusalPages() async throws {
        let configuration = ServerConfiguration(dashboard: DashboardConfiguration(enabled: true))
        try await InProcessConnection.withPublishing(configuration: configuration) { connection in
            #expect(try await connection.publish("a.txt", Data("one\n".utf8)).status == 201)
            for (target, status, text) in [("/dashboard/diff?from=99&to=1", 404, "No such release"), ("/dashboard/file", 400, "Name a file")] {
                let page = try await connection.request("GET", target, headers: [Self.auth])
                #expect(page.status == status, "\(target)")
                #expect(page.header("Content-Type")?.hasPrefix("text/html") == true && page.bodyText.contains(text), "\(target): \(page.bodyText)")
                #expect(page.bodyText.contains("Back to the dashboard"))
            }
        }
    }

    @Test("the dashboard's diff is by content: the same bytes published again as a new version are no change")
    func diffByContent() async throws {
        let configuration = ServerConfiguration(dashboard: DashboardConfiguration(enabled: true))
        try await InProcessConnection.withPublishing(configuration: configuration) { connection in
            #expect(try await connection.publish("a.txt", Data("same\n".utf8)).status == 201)
            #expect(try await connection.publish("b.txt", Data("b one\n".utf8)).status == 201)
            #expect(try await connection.request("DELETE", "/v1/files/a.txt", headers: [Self.auth]).status == 204)
            #expect(try await connection.publish("a.txt", Data("same\n".utf8)).status == 201)
            #expect(try await connection.publish("b.txt", Data("b two\n".utf8)).status == 201)
            let diff = try await connection.request("GET", "/v1/admin/diff?from=2&to=5", headers: [Self.auth])
            #expect(diff.status == 200, "\(diff.bodyText)")
            // a.txt has a new version of the same bytes; only b.txt's content changed.
            #expect(diff.bodyText.contains(#""path":"b.txt""#) && !diff.bodyText.contains(#""path":"a.txt""#), "\(diff.bodyText)")
        }
    }

    @Test(
        "invalid paths are 400",
        arguments: [
            "/v1/files/../etc/passwd", "/v1/files/%2e%2e/x", "/v1/files/a//b", "/v1/files/a%00b", "/v1/files/a%0Ab", "/v1/files/dir/", "/v1/files/",
        ]
    )
    func invalidPaths(target: String) async throws {
        try await InProcessConnection.withPublishing { connection in
            let response = try await connection.request("PUT", target, headers: [Self.auth], body: Array("x".utf8))
            #expect(response.status == 400)
            #expect(response.bodyText.contains("error"))
        }
    }
}
