/// Trying servers in order: the one rule `DepotClient` (``DepotClient/servers``) and `depot
/// mirror` (its `--from` sources) fail over by.
///
/// Each server gets one attempt. An attempt that throws a ``SyncError`` whose fault may be the
/// server's (``SyncError/Code/isServerFault``: the network, a status, a check that failed) moves
/// on to the next server; any other error ends the run at once (the folder's own failure, an
/// app no release suits). An attempt may also end ``Attempt/poor(_:reason:)``: done, but not
/// well enough to stop while a server is left (a file failed). When the last server fails, the
/// error says what each one did.
public enum Failover {
    /// How one server's attempt ended.
    public enum Attempt<Result> {
        /// Done: no other server is tried.
        case done(Result)
        /// Done with a fault (`reason`) that the next server may not have; the result stands only
        /// when no server is left.
        case poor(Result, reason: String)
    }

    /// Runs `attempt` on each of `servers` in turn, with whether it is the last, until one is
    /// done; returns its result and the servers that failed before it.
    public static func run<Server, Result>(
        _ servers: [Server],
        name: (Server) -> String,
        _ attempt: (Server, _ isLast: Bool) async throws -> Attempt<Result>
    ) async throws -> (Result, [SyncReport.Failover]) {
        precondition(!servers.isEmpty, "failover needs a server")
        var failovers: [SyncReport.Failover] = []
        for (index, server) in servers.enumerated() {
            let isLast = index == servers.count - 1
            do {
                switch try await attempt(server, isLast) {
                case .done(let result):
                    return (result, failovers)
                case .poor(let result, let reason):
                    if isLast { return (result, failovers) }
                    failovers.append(.init(server: name(server), error: reason))
                }
            } catch let error as SyncError where error.code.isServerFault {
                failovers.append(.init(server: name(server), error: error.message))
                guard isLast else { continue }
                guard failovers.count > 1 else { throw error }
                throw SyncError(error.code, "every server failed: " + failovers.map { "\($0.server): \($0.error)" }.joined(separator: "; "))
            }
        }
        preconditionFailure("the last server returns or throws")
    }
}
