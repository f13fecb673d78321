import DepotServer
import DepotTestFixtures
import DepotTestSupport
import Testing

/// `/readyz` is public: through the application's router, however many probes arrive at once or
/// one after another, its computation (a catalog read, a file made in the store) runs once an
/// interval of the server's clock, a clock the test moves by hand (issue 57, defect 9). Counted
/// by a hook the server awaits at each computation. In process: the sharing is the
/// application's (ReadinessCheck), not the connection's.
@Suite("Readiness probes")
struct ReadinessProbesTests {
    @Test("20 concurrent and 20 sequential GET /readyz within one interval: one computation; after the interval, one more")
    func onceAnInterval() async throws {
        let probes = HeldProbes()
        let clock = ManualClock()
        var configuration = ServerConfiguration()
        configuration.readinessClock = clock.connectionClock
        configuration.beforeReadinessProbe = { await probes.enter() }
        try await InProcessServer.with(configuration: configuration, prepare: Fixture.standardFolder) { server in
            // The start-up's wait for the public folder asked once; its verdict ages past the interval.
            let started = probes.count
            #expect(started == 1)
            clock.advance(by: .seconds(1))

            // 20 at once, while the computation the first of them started is held.
            probes.hold()
            async let statuses = withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await server.connection { try await $0.request("GET", "/readyz").status } }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            while probes.heldNow == 0 { await Task.yield() }
            probes.release()
            let concurrent = try await statuses
            #expect(concurrent.count == 20 && concurrent.allSatisfy { $0 == 200 }, "\(concurrent)")
            #expect(probes.count == started + 1, "20 concurrent probes: \(probes.count - started) computations")

            // 20 one after another, still within the interval.
            #expect(try await Self.oneAfterAnother(20, server) == Array(repeating: 200, count: 20))
            #expect(probes.count == started + 1, "20 sequential probes: \(probes.count - started) computations")

            // The interval passes by the server's clock: one computation more, shared again.
            clock.advance(by: .milliseconds(999))
            #expect(try await server.connection { try await $0.request("GET", "/readyz").status } == 200)
            #expect(probes.count == started + 1, "still within the interval")
            clock.advance(by: .milliseconds(1))
            #expect(try await Self.oneAfterAnother(20, server) == Array(repeating: 200, count: 20))
            #expect(probes.count == started + 2, "the interval passed: \(probes.count - started - 1) computations more")
        }
    }

    /// The statuses of `count` `GET /readyz`, one after another.
    static func oneAfterAnother(_ count: Int, _ server: InProcessServer) async throws -> [Int] {
        try await server.connection { connection in
            var statuses: [Int] = []
            for _ in 0..<count { statuses.append(try await connection.request("GET", "/readyz").status) }
            return statuses
        }
    }
}
