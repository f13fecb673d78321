import DepotAPI
import DepotServer
import DepotTestFixtures
import DepotTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

/// `/packs/{page}` and `.br` cost their first request a computation (reading a page's files,
/// brotli over them): anyone may ask, so each is made once, kept on disk, bounded, on threads of
/// its own, and only for GET and HEAD (issue 57, defects 1 and 2). Counted by
/// `depot_packs_made_total`, in process (the router and its responder; no socket).
@Suite("Page packs: made once, kept")
struct PackComputationTests {
    @Test("50 concurrent cold GETs of a page's brotli pack, and 50 HEADs of its pack, make each once; all get the same bytes")
    func concurrentColdRequests() async throws {
        try await InProcessServer.withPublishing { server in
            let page = try #require(try await PagePacks.publish(server, count: 60).pages.first)
            let bodies = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        let answer = try await server.connection { try await $0.request("GET", "/packs/\(page).br") }
                        #expect(answer.status == 200)
                        return answer.body
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(bodies).count == 1 && bodies[0].count > 100)
            let lengths = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await server.connection { try await $0.request("HEAD", "/packs/\(page)") }.header(
                            "Content-Length"
                        )
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(lengths).count == 1 && lengths[0] != nil)
            let made = (
                br: try await PagePacks.metric(server, PagePacks.brMade), identity: try await PagePacks.metric(server, PagePacks.identityMade)
            )
            #expect(made.br == 1 && made.identity == 1, "made \(made)")
        }
    }

    @Test("POST, PUT and DELETE on a pack answer 405 with Allow and make nothing")
    func methodFirst() async throws {
        try await InProcessServer.withPublishing { server in
            let page = try #require(try await PagePacks.publish(server, count: 40).pages.first)
            for method in ["POST", "PUT", "DELETE"] {
                for path in ["/packs/\(page).br", "/packs/\(page)"] {
                    let answer = try await server.connection { try await $0.request(method, path, body: [1]) }
                    #expect(answer.status == 405, "\(method) \(path)")
                    #expect(answer.header("Allow") == "GET, HEAD")
                }
            }
            let made = (
                br: try await PagePacks.metric(server, PagePacks.brMade), identity: try await PagePacks.metric(server, PagePacks.identityMade)
            )
            #expect(made.br == 0 && made.identity == 0, "made \(made)")
        }
    }

    @Test("HEADs cycling over more pages' packs than the resource cache holds: the second pass makes none")
    func keptPastTheCache() async throws {
        let configuration = ServerConfiguration(memoryCacheBytes: 0, resourceCacheEntries: 2)
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            let pages = try await PagePacks.publish(server, count: 200).pages
            #expect(pages.count >= 4)
            for pass in 1...2 {
                for page in pages {
                    for path in ["/packs/\(page).br", "/packs/\(page)"] {
                        let answer = try await server.connection { try await $0.request("HEAD", path) }
                        #expect(answer.status == 200, "pass \(pass): \(path)")
                    }
                }
                let made = (
                    br: try await PagePacks.metric(server, PagePacks.brMade), identity: try await PagePacks.metric(server, PagePacks.identityMade)
                )
                #expect(made.br == Double(pages.count) && made.identity == Double(pages.count), "pass \(pass) of \(pages.count) pages: made \(made)")
            }
        }
    }

    @Test("a restarted server serves the packs made before the restart from disk, making none")
    func keptAcrossRestarts() async throws {
        try await withTemporaryDirectory { folder in
            let data = folder.appendingPathComponent("data")
            var configuration = ServerConfiguration()
            configuration.publish.tokens = [PublishToken.secret]
            let (page, before) = try await InProcessServer.withDataDirectory(data, configuration: configuration) { server in
                let page = try #require(try await PagePacks.publish(server, count: 40).pages.first)
                let before = try await server.connection { try await $0.request("GET", "/packs/\(page).br") }
                #expect(try await PagePacks.metric(server, PagePacks.brMade) == 1)
                return (page, before.body)
            }
            try await InProcessServer.withDataDirectory(data, configuration: configuration) { server in
                let after = try await server.connection { try await $0.request("GET", "/packs/\(page).br") }
                #expect(after.status == 200 && after.body == before)
                let made = try await PagePacks.metric(server, PagePacks.brMade)
                #expect(made == 0, "made \(made)")
            }
        }
    }

    @Test("while packs are being made (held on their threads), files and blobs are served; past the bound, 503 with Retry-After")
    func boundedAndApart() async throws {
        let entered = Atomic(0)
        let gate = DispatchSemaphore(value: 0)
        var configuration = ServerConfiguration(memoryCacheBytes: 0)
        configuration.packs = ComputeLimits(maximumConcurrent: 2, maximumQueued: 0)
        configuration.packs.whileComputing = {
            entered.add(1, ordering: .relaxed)
            gate.wait()
        }
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            defer { for _ in 0..<8 { gate.signal() } }
            let (pages, path, sha256) = try await PagePacks.publish(server, count: 200)
            try await withThrowingTaskGroup(of: Int.self) { group in
                // Two pages' packs hold both threads (as many as this machine's NIO blocking pool has on two cores).
                for page in pages.prefix(2) {
                    group.addTask { try await server.connection { try await $0.request("GET", "/packs/\(page).br") }.status }
                }
                // Not a deadline: a bound on the wait, so that a server that never holds fails instead of hanging.
                // Hang guard: slowest seen 23 s under two busy loops (the whole test).
                let held = try await poll(every: .milliseconds(5), for: .seconds(120)) { entered.load(ordering: .relaxed) >= 2 ? true : nil }
                try #require(held == true, "both packs are being made")
                try await server.connection { connection in
                    let busy = try await connection.request("GET", "/packs/\(pages[2]).br")
                    #expect(busy.status == 503)
                    #expect(busy.header("Retry-After") == "10")
                    #expect(try await connection.request("GET", "/files/\(path)").status == 200)
                    let blob = try await connection.request("GET", "/blobs/\(sha256)")
                    #expect(blob.status == 200 && !blob.body.isEmpty)
                }
                #expect(entered.load(ordering: .relaxed) == 2, "the refused page made nothing")
                gate.signal()
                gate.signal()
                let statuses = try await group.reduce(into: []) { $0.append($1) }
                #expect(statuses == [200, 200])
            }
        }
    }
}
