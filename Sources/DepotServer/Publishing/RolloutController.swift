import DepotAPI
import DepotManifest
import DepotStore
import Hummingbird

/// The rollout API (docs/releases.md, "Rollouts"): changes need a token with the `rollouts`
/// scope for the channel, the status `read`; every route answers with ``DepotAPI/RolloutInfo``.
///
/// - `POST /v1/channels/{name}/rollout` with ``DepotAPI/RolloutRequest``: starts rolling a
///   release out (201).
/// - `GET /v1/channels/{name}/rollout`: the channel's newest rollout, live or ended.
/// - `GET /v1/rollouts`: every channel's newest rollout (``DepotAPI/RolloutList``), the live ones
///   first.
/// - `POST /v1/channels/{name}/rollout/{pause|resume|halt|rollback}`.
struct RolloutController: Sendable {
    let publisher: Publisher
    /// The networks a gate needs unless its rollout says otherwise (``ReportConfiguration/gateNetworks``).
    let gateNetworks: Int

    /// Its routes, in the `/v1` group (behind the tokens' scopes).
    func addRoutes(to publishing: ScopedRoutes) {
        publishing.post("channels/:name/rollout", requires: .rollouts, channel: .parameter("name"), use: start)
        publishing.get("channels/:name/rollout", requires: .read, use: status)
        publishing.get("rollouts", requires: .read, use: list)
        publishing.post("channels/:name/rollout/:action", requires: .rollouts, channel: .parameter("name"), use: change)
    }

    @Sendable func start(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let channel = try channel(context)
        // A rollout that completes points the channel at its release: starting one is a promote
        // as well.
        try grant.check(.promote, channel: channel)
        let permit = try grant.permit(.rollouts, channel: channel)
        let body = try await request.body.collect(upTo: 64 * 1024)
        let start: RolloutRequest
        do {
            start = try APIJSON.decode(RolloutRequest.self, from: body.readableBytesView)
        } catch {
            throw HTTPError(
                .badRequest,
                message:
                    #"The body must be {"release": "<number or id>", "steps": [1, 10, 50, 100], "everySeconds": 3600, "maxFailureRate": 0.02, "minReports": 200, "autoRollback": true, "minNetworks": 3}"#
            )
        }
        return try Response.json(
            try await publisher.startRollout(start, gateNetworks: gateNetworks, permit: permit, logger: context.logger),
            status: .created
        )
    }

    @Sendable func status(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        try Response.json(try await publisher.rollout(of: try channel(context), gateNetworks: gateNetworks))
    }

    @Sendable func list(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        try Response.json(try await publisher.rollouts(gateNetworks: gateNetworks))
    }

    @Sendable func change(_ request: Request, context: DepotRequestContext, grant: AccessGrant) async throws -> Response {
        let permit = try grant.permit(.rollouts, channel: try channel(context))
        let action: RolloutAction
        do {
            action = try RolloutAction(pathComponent: context.parameters.get("action") ?? "")
        } catch {
            throw HTTPError(.notFound, message: error.description)
        }
        return try Response.json(try await publisher.changeRollout(action, gateNetworks: gateNetworks, permit: permit, logger: context.logger))
    }

    private func channel(_ context: DepotRequestContext) throws -> String {
        let name = context.parameters.get("name") ?? ""
        if let problem = ChannelName.problem(name) { throw HTTPError(.badRequest, message: "\(name.prefix(80)): \(problem)") }
        return name
    }
}
