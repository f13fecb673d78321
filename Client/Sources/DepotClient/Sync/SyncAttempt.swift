import DepotManifest
import DepotPolicy
import Foundation

/// One sync from one server, up to a goal (``SyncGoal``), in a folder already locked and with
/// no switch left half done. ``run()`` reads as its named steps, each a function with a typed
/// result, each driven alone by `SyncAttemptTests`:
/// 1. ``poll(_:)``: the channel, checked against what is trusted (``Poll``);
/// 2. ``documents(of:from:)``: the release document and the pages to compare
///    (``ReleaseDocuments``);
/// 3. ``plan(_:of:from:)``: what to fetch, and from what (``PlannedSync``);
/// 4. ``readAhead(_:)`` then ``estimate(_:ways:of:)``: what the fetches would transfer, against
///    the budget (``UpdatePlan``), from the block indexes fetched first (no network of its own);
/// 5. ``stage(_:progress:)``: every file fetched and verified into staging;
/// 6. ``switchOrKeep(_:of:from:)``: the switch, or the staged record ``DepotClient/apply()``
///    takes;
/// 7. the health reports of the rollout gate (``report(_:about:)``).
///
/// The failover (``DepotClient/run(to:progress:)``) makes one per server.
struct SyncAttempt {
    /// What the steps work with (``SyncContext``): never the client.
    let context: SyncContext
    let server: URL
    let goal: SyncGoal
    let progress: ProgressSink
    /// Whether a failed file is reported to the rollout gate (not when another server is left
    /// to try).
    let reportsFailure: Bool
    let session: TransferSession
    /// The documents' source, which counts their bytes.
    let source: SessionSource
    let reader: TreeReader<SessionSource>
    /// The entries a batch of pages may hold in a paged sync (``runPaged(_:from:)``).
    var entriesPerBatch = SyncAttempt.defaultEntriesPerBatch

    init(client: DepotClient, server: URL, goal: SyncGoal, progress: ProgressSink = ProgressSink(), reportsFailure: Bool = true) {
        self.init(context: client.context, server: server, goal: goal, progress: progress, reportsFailure: reportsFailure)
    }

    init(context: SyncContext, server: URL, goal: SyncGoal, progress: ProgressSink = ProgressSink(), reportsFailure: Bool = true) {
        self.context = context
        self.server = server
        self.goal = goal
        self.progress = progress
        self.reportsFailure = reportsFailure
        let configuration = context.configuration
        session = TransferSession(
            configuration: context.sessionConfiguration(),
            limits: TransferLimits(
                minimumBytesPerSecond: configuration.minimumTransferRate,
                window: configuration.transferRateWindow,
                clock: configuration.transferClock
            )
        )
        source = SessionSource(server: server, session: session, deadline: configuration.documentTimeout)
        reader = TreeReader(source: source, maximumDocumentBytes: configuration.maximumDocumentBytes)
    }

    /// Runs the steps up to the goal; returns the report and, for a check, the plan.
    func run() async throws -> (SyncReport, UpdatePlan?) {
        defer { session.finish() }
        let start = try SyncStart(context)
        let channel: NewChannel
        switch try await poll(start) {
        case .notModified(let report):
            return (report, .upToDate(start.held, rollout: report.rollout))
        case .sameRelease(let report, let state):
            return try keep(report, state: state)
        case .newRelease(let new):
            channel = new
        }
        if isPaged(channel) { return try await runPaged(channel, from: start) }
        var report = channel.report
        // The documents go once planned: the plan keeps what it needs of their pages.
        var planned = try plan(try await documents(of: channel, from: start), of: channel, from: start)
        report.documentBytes = source.received.total
        report.unchangedCount = Int(planned.next.files) - planned.plan.fetches.count
        // What the estimate weighs is fetched first; the estimate itself does no network.
        var estimate = readsAhead(channel) ? try estimate(planned, ways: try await readAhead(planned), of: channel) : nil
        if goal == .check, estimate != nil {
            // The download polls again: what this check's poll moved, it moves.
            estimate?.documentBytes = channel.report.documentBytes
            return (report, estimate)
        }
        try checkSpace(planned, estimate: estimate)
        let stager = estimate.flatMap { progress.starting(expected: $0.expectedBytes, files: planned.plan.fetches.count) }
        report.files = try await stage(planned, progress: stager)
        if try await reportsFailure(in: report, of: channel) { return (report, nil) }
        // Staged: the switch needs the moves, not the pages' entries (100,000 are 30 MB).
        planned.forgetPages()
        return (try await switchOrKeep(planned, of: channel, from: start, report: report), nil)
    }

    /// Sends `report` about `release` to the rollout gate, with the queue of reports waiting,
    /// when reports are on.
    func report(_ report: HealthReport, about release: String) async throws {
        guard context.configuration.sendsReports else { return }
        try context.reportQueue.add(report, release: release, channel: context.configuration.channel, install: try context.installID())
        await context.sendReports(session: session)
    }
}

/// What the folder holds as a sync starts.
struct SyncStart {
    var state: SyncState
    /// The release held, if of the channel followed: what the poll revalidates and the rollout
    /// side is chosen against.
    let held: HeldRelease?
    /// The release whose files the folder holds, of whatever channel (``SyncState/release``):
    /// the plan compares the new release with it, so that what it lacks is removed whether the
    /// channel moved on or the folder switched channels (``ReleasePlan``, one rule).
    let placed: HeldRelease?
    /// With release folders, the tree the link names.
    let tree: String?

    init(_ context: SyncContext) throws {
        state = context.state
        held = state.release?.channel == context.configuration.channel ? state.release : nil
        placed = state.release
        tree = try context.heldTree(of: state.release)
    }

    init(_ client: DepotClient) throws {
        try self.init(client.context)
    }
}
