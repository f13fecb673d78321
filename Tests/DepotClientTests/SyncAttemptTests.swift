import DepotManifest
import DepotPolicy
import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// A sync's named steps (``SyncAttempt``), each driven alone against a real server: each
/// returns the typed result the next takes.
@Suite("A sync's steps, one at a time")
struct SyncAttemptTests {
    @Test("poll: a new release; once it is held, not modified; the same release under a new document")
    func poll() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("a.txt", Data("one\n".utf8))])
            try await withTemporaryDirectory { folder in
                let client = SyncTests.client(server, folder)
                let attempt = SyncAttempt(client: client, server: client.server, goal: .apply)
                defer { attempt.session.finish() }
                guard case .newRelease(let channel) = try await attempt.poll(try SyncStart(client)) else {
                    Issue.record("a fresh folder's poll found no new release")
                    return
                }
                #expect(channel.next.number == 1 && channel.report.channelNotModified == false)
                _ = try await client.sync()
                guard case .notModified(let report) = try await attempt.poll(try SyncStart(client)) else {
                    Issue.record("the poll of the release held was not a 304")
                    return
                }
                #expect(report.channelNotModified && report.release?.number == 1)

                // The channel moves to release 2 and back: a new document naming release 1.
                try await server.publish([("a.txt", Data("two\n".utf8))])
                let rollback = try await RolloutFleetTests.send(server, "POST", "/v1/channels/stable/rollback")
                #expect(rollback.status == 200, "\(rollback.bodyText)")
                let held = try #require(client.currentRelease)
                guard case .sameRelease(let same, let state) = try await attempt.poll(try SyncStart(client)) else {
                    Issue.record("a new document naming the release held was not the same release")
                    return
                }
                #expect(same.release?.id == held.id && (state.channel?.serial ?? 0) > held.serial)
                #expect(try attempt.keep(same, state: state).0.release?.serial == state.channel?.serial)
                #expect(client.currentRelease?.serial == state.channel?.serial)
            }
        }
    }

    @Test("documents, plan, estimate, stage and switch, each alone: each result is what the next takes, and nothing switches before the last")
    func steps() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("a.txt", Data("one\n".utf8)), ("b.txt", Data("same\n".utf8))])
            try await withTemporaryDirectory { folder in
                let client = SyncTests.client(server, folder)
                _ = try await client.sync()
                try await server.publish([("a.txt", Data("two\n".utf8)), ("c.txt", Data("new\n".utf8))])
                let attempt = SyncAttempt(client: client, server: client.server, goal: .apply)
                defer { attempt.session.finish() }
                let start = try SyncStart(client)
                guard case .newRelease(let channel) = try await attempt.poll(start) else {
                    Issue.record("no new release")
                    return
                }

                let documents = try await attempt.documents(of: channel, from: start)
                #expect(documents.release.files == 3 && !documents.changed.after.isEmpty)
                #expect(documents.changed.after.allSatisfy { documents.pages[$0] != nil })

                let planned = try attempt.plan(documents, of: channel, from: start)
                #expect(planned.plan.fetches.map(\.entry.path) == ["a.txt", "c.txt"])
                #expect(planned.next.id == channel.side.release && planned.next.files == 3)

                // An apply with no budget and no progress stream reads nothing ahead; a check does,
                // then estimates with no network.
                #expect(!attempt.readsAhead(channel))
                let check = SyncAttempt(client: client, server: client.server, goal: .check)
                defer { check.session.finish() }
                #expect(check.readsAhead(channel))
                let estimate = try check.estimate(planned, ways: try await check.readAhead(planned), of: channel)
                #expect(estimate.files.map(\.path) == ["a.txt", "c.txt"] && estimate.expectedBytes > 0)

                let files = try await attempt.stage(planned, progress: nil)
                #expect(files.count == 2 && files.allSatisfy { $0.outcome != .failed }, "\(files)")
                #expect(SyncTests.contents(folder, "a.txt") == Data("one\n".utf8), "staging changed the folder")

                let report = try await attempt.switchOrKeep(planned, of: channel, from: start, report: channel.report)
                #expect(report.release?.id == planned.next.id && client.currentRelease?.id == planned.next.id)
                #expect(SyncTests.contents(folder, "a.txt") == Data("two\n".utf8))
                #expect(SyncTests.contents(folder, "c.txt") == Data("new\n".utf8))
            }
        }
    }
}
