import Testing

@testable import DepotClient

/// The one failover rule of the client and the mirror, as a table: what each server's attempt
/// does, and where the run ends.
@Suite("Failover")
struct FailoverTests {
    /// What one server's attempt does.
    enum Step: Sendable {
        case done
        case poor
        case serverFault
        case localFault
    }

    struct LocalFault: Error {}

    @Test(
        "each server in turn, until one is done",
        arguments: [
            // steps of servers a, b, c → the server whose result stands (nil: thrown), failovers
            ([.done, .done, .done], "a", []),
            ([.serverFault, .done, .done], "b", ["a"]),
            ([.poor, .serverFault, .done], "c", ["a", "b"]),
            ([.poor, .poor, .poor], "c", ["a", "b"]),  // the last server's poor result stands
            ([.serverFault, .localFault, .done], nil, []),  // the folder's own failure ends the run
            ([.serverFault, .serverFault, .serverFault], nil, []),
        ] as [([Step], String?, [String])]
    )
    func run(steps: [Step], result: String?, failedOver: [String]) async throws {
        let servers = ["a", "b", "c"]
        var tried: [String] = []
        do {
            let (served, failovers) = try await Failover.run(servers, name: \.self) { server, isLast in
                tried.append(server)
                #expect(isLast == (server == "c"))
                switch steps[servers.firstIndex(of: server)!] {
                case .done: return .done(server)
                case .poor: return .poor(server, reason: "a file failed")
                case .serverFault: throw SyncError(.server, "\(server) answered 503")
                case .localFault: throw LocalFault()
                }
            }
            #expect(served == result)
            #expect(failovers.map(\.server) == failedOver)
        } catch let error as SyncError {
            #expect(result == nil)
            #expect(tried == servers)
            #expect(error.message == "every server failed: a: a answered 503; b: b answered 503; c: c answered 503")
        } catch is LocalFault {
            #expect(result == nil)
            #expect(tried == ["a", "b"], "no server after a local failure")
        }
    }
}
