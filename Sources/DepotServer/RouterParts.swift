import Hummingbird

/// What ``buildRouter(recorder:sendsRequestIDs:content:api:operations:)`` serves published content
/// with: the public folder and the catalog's files, documents and patches.
struct ContentRoutes: Sendable {
    var resolver: ContentResolver
    var responder: ResourceResponder
    /// Makes the patches a request asks for (RFC 3229).
    var patches: PatchMaker
    /// The most `If-None-Match` tags looked up as the base of a patch.
    var maximumDeltaBases: Int
    /// `/releases/{id}` and `/pages/{sha256}`, with their packs.
    var documents: ReleaseDocumentsController
}

/// The `/v1` API: its tokens and audit trail, and its controllers.
struct APIRoutes: Sendable {
    /// The tokens and the audit trail every scoped route is checked and recorded with.
    var access: ScopedRoutes.Access
    var files: PublishController
    var releases: ReleaseController
    var rollouts: RolloutController
    /// `POST /v1/reports`, open to installs.
    var reports: ReportsController
}

/// What an operator looks at: the health probes, the metrics and the dashboard.
struct OperationsRoutes: Sendable {
    var health: HealthController
    var metrics: MetricsController
    var dashboard: DashboardController? = nil
}
