import DepotServer
import DepotTestFixtures
import DepotTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

/// Issue 57, cause 8: the page packs made once and kept (``PackComputationTests``), attacked as
/// an anonymous client would: names that are not pages, validators and ranges on a kept pack,
/// and requests abandoned while their pack is being made. Counted by `depot_packs_made_total`,
/// over a real socket.
@Suite("Page packs: attacks by an anonymous client")
struct PackAttackTests {
    @Test("names that are not a stored page (random, uppercase, .br.br, dot-dot, overlong, a file's blob) make nothing and get short answers")
    func notPages() async throws {
        try await InProcessServer.withPublishing { server in
            let (pages, _, fileSHA256) = try await PagePacks.publish(server, count: 40)
            let page = try #require(pages.first)
            let names = [
                String(repeating: "ab", count: 32), page.uppercased(), "\(page).br.br", "\(page).BR", "\(page).gz", "%2e%2e%2f\(page)",
                "..%2f\(page).br", "\(page)%00.br", page + String(repeating: "0", count: 2_000), String(page.dropLast()), fileSHA256,
                "\(fileSHA256).br",
            ]
            for name in names {
                for method in ["GET", "HEAD"] {
                    let answer = try await server.connection { try await $0.request(method, "/packs/\(name)") }
                    #expect([400, 404].contains(answer.status), "\(method) \(name): \(answer.status)")
                    #expect(answer.body.count < 256, "\(method) \(name): a body of \(answer.body.count) bytes")
                }
                let posted = try await server.connection { try await $0.request("POST", "/packs/\(name)", body: [1]) }
                #expect(posted.status == 405 && posted.body.count < 256, "POST \(name): \(posted.status)")
            }
            // Their siblings echo a name too: never more of it than a line.
            for path in ["/pages/", "/releases/"] {
                let answer = try await server.connection {
                    try await $0.request("GET", path + String(repeating: "a", count: 4_000))
                }
                #expect(answer.status == 404 && answer.body.count < 256, "\(path): \(answer.status), \(answer.body.count) bytes")
            }
            let made = try await PagePacks.made(server)
            #expect(made.br == 0 && made.identity == 0, "made \(made)")
        }
    }

    @Test("Range, If-None-Match and If-Range on a kept brotli pack: 206 of its bytes, 304, and an ETag stable across a restart")
    func validatorsAndRanges() async throws {
        try await withTemporaryDirectory { folder in
            let data = folder.appendingPathComponent("data")
            var configuration = ServerConfiguration()
            configuration.publish.tokens = [PublishToken.secret]
            let (page, whole, tag) = try await InProcessServer.withDataDirectory(data, configuration: configuration) { server in
                let page = try #require(try await PagePacks.publish(server, count: 40).pages.first)
                let path = "/packs/\(page).br"
                return try await server.connection { connection in
                    let whole = try await connection.request("GET", path)
                    let tag = try #require(whole.header("ETag"))
                    #expect(whole.status == 200 && tag.hasPrefix("\""), "a strong ETag: \(tag)")
                    let part = try await connection.request("GET", path, headers: [("Range", "bytes=0-9")])
                    #expect(part.status == 206 && part.body == Array(whole.body.prefix(10)))
                    #expect(part.header("Content-Range") == "bytes 0-9/\(whole.body.count)")
                    let tail = try await connection.request("GET", path, headers: [("Range", "bytes=-5")])
                    #expect(tail.status == 206 && tail.body == Array(whole.body.suffix(5)))
                    let beyond = try await connection.request("GET", path, headers: [("Range", "bytes=\(whole.body.count)-")])
                    #expect(beyond.status == 416)
                    let unchanged = try await connection.request("GET", path, headers: [("If-None-Match", tag)])
                    #expect(unchanged.status == 304 && unchanged.body.isEmpty)
                    let resumed = try await connection.request("GET", path, headers: [("Range", "bytes=10-"), ("If-Range", tag)])
                    #expect(resumed.status == 206 && resumed.body == Array(whole.body.dropFirst(10)))
                    let other = try await connection.request("GET", path, headers: [("Range", "bytes=10-"), ("If-Range", "\"other\"")])
                    #expect(other.status == 200 && other.body == whole.body)
                    return (page, whole.body, tag)
                }
            }
            try await InProcessServer.withDataDirectory(data, configuration: configuration) { server in
                try await server.connection { connection in
                    let again = try await connection.request("GET", "/packs/\(page).br", headers: [("Range", "bytes=10-"), ("If-Range", tag)])
                    #expect(again.status == 206 && again.body == Array(whole.dropFirst(10)))
                    #expect(again.header("ETag") == tag)
                    #expect(try await connection.request("HEAD", "/packs/\(page).br", headers: [("If-None-Match", tag)]).status == 304)
                }
                let made = try await PagePacks.made(server)
                #expect(made.br == 0, "made \(made) after the restart")
            }
        }
    }

    @Test(
        "a page whose member blob is gone (collected, or lost): 404, nothing kept, and not a computation on every request",
        .disabled(
            "defect: PagePacks keeps no record of .memberMissing, so every GET of either pack reads the page's blobs again up to the missing one (5 requests: br 5, identity 5), bounded only by packs.maximumConcurrent/maximumQueued"
        )
    )
    func memberGone() async throws {
        try await withTemporaryDirectory { folder in
            let data = folder.appendingPathComponent("data")
            var configuration = ServerConfiguration(memoryCacheBytes: 0, resourceCacheEntries: 0)
            configuration.publish.tokens = [PublishToken.secret]
            try await InProcessServer.withDataDirectory(data, configuration: configuration) { server in
                let (pages, _, sha256) = try await PagePacks.publish(server, count: 40)
                let page = try #require(pages.first)
                let blob = data.appendingPathComponent("blobs/\(sha256.prefix(2))/\(sha256)")
                for suffix in ["", ".gz"] { try? FileManager.default.removeItem(atPath: blob.path + suffix) }
                for _ in 0..<5 {
                    for path in ["/packs/\(page)", "/packs/\(page).br"] {
                        let answer = try await server.connection { try await $0.request("GET", path) }
                        #expect(answer.status == 404 && answer.body.count < 256, "\(path): \(answer.status)")
                    }
                }
                let made = try await PagePacks.made(server)
                #expect(made.br <= 1 && made.identity <= 1, "5 requests each made \(made)")
            }
        }
    }

    @Test("on-request patches: POST is 405 before any work; a pair not worth patching is encoded once, however often it is asked for")
    func patchesOnRequest() async throws {
        let configuration = ServerConfiguration(publish: .init(deltas: DeltaConfiguration(distances: [1])))
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            let versions = (1...3).map { Fixture.pseudoRandom(count: 100_000, seed: 2 * $0 + 1) }
            try await server.connection { connection in
                for version in versions {
                    let reply = try await connection.request(
                        "PUT",
                        "/v1/files/noise.bin",
                        headers: [PublishToken.authorization],
                        body: Array(version)
                    )
                    #expect(reply.status == 201)
                }
                let path = "/deltas/\(Fixture.sha256(versions[0]))/\(Fixture.sha256(versions[2]))"
                for method in ["POST", "PUT", "DELETE"] {
                    let refused = try await connection.request(method, path, body: [1])
                    #expect(refused.status == 405 && refused.body.count < 256, "\(method): \(refused.status)")
                }
                #expect(try await connection.metric(#"depot_patches_encoded_total{when="request"}"#) == 0)
                for _ in 0..<5 {
                    let answer = try await connection.request("GET", path)
                    #expect(answer.status == 404 && answer.body.count < 256)
                }
                let encoded = try await connection.metric(#"depot_patches_encoded_total{when="request"}"#)
                #expect(encoded == 1, "5 requests encoded \(encoded) patches")
            }
        }
    }

    @Test("packs of a page no kept release lists are collected with it; asking for them afterwards makes none")
    func retiredPagesPacksCollected() async throws {
        let configuration = ServerConfiguration(
            publish: .init(keepVersions: 1, keepReleases: 1, retiredGracePeriod: .zero, collectionInterval: .milliseconds(100))
        )
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            let old = try #require(try await PagePacks.publish(server, count: 40).pages.first)
            var packBlobs: [String] = []
            for path in ["/packs/\(old)", "/packs/\(old).br"] {
                let answer = try await server.connection { try await $0.request("GET", path) }
                #expect(answer.status == 200)
                packBlobs.append(try #require(answer.header("ETag")).trimmingCharacters(in: ["\""]))
            }
            #expect(
                Fixture.blobFiles(server.dataDirectory).isSuperset(of: packBlobs),
                "the packs are kept as blobs: \(packBlobs)"
            )
            let new = try await PagePacks.publish(server, count: 41).pages
            #expect(!new.contains(old))
            // However slowly a loaded machine runs the collections: the bound only guards a hang.
            var files = Fixture.blobFiles(server.dataDirectory)
            // Hang guard: slowest seen 11.2 s under two busy loops (the whole test).
            for _ in 0..<12_000 where !files.isDisjoint(with: packBlobs) {
                try await Task.sleep(for: .milliseconds(50))
                files = Fixture.blobFiles(server.dataDirectory)
            }
            #expect(files.isDisjoint(with: packBlobs), "the retired page's packs were not collected")
            let before = try await PagePacks.made(server)
            for path in ["/packs/\(old)", "/packs/\(old).br"] {
                let answer = try await server.connection { try await $0.request("GET", path) }
                #expect(answer.status == 404, "\(path): \(answer.status)")
            }
            let after = try await PagePacks.made(server)
            #expect(after.br == before.br && after.identity == before.identity, "made \(before) then \(after)")
        }
    }
}
