import DepotManifest
import DepotPolicy
import Foundation

/// What a paged sync is expected to transfer and need (``SyncAttempt/estimate(_:of:next:held:contentPath:localCopies:)``):
/// the totals of its batches' ``UpdatePlan``s, each let go once summed.
struct PagedEstimate: Sendable, Equatable {
    /// The bytes expected to transfer, documents aside (``UpdatePlan/expectedBytes``): what the
    /// budget and the progress are judged by.
    var expectedBytes: Int64 = 0
    /// The local space the staging needs (``UpdatePlan/requiredBytes``).
    var requiredBytes: Int64 = 0
    /// The files fetched.
    var files = 0

    /// Adds a batch's plan.
    mutating func add(_ plan: UpdatePlan) {
        expectedBytes += plan.expectedBytes
        requiredBytes += plan.requiredBytes
        files += plan.files.count
    }
}

extension SyncAttempt {
    /// The estimate of a paged sync with a budget or a progress stream (``readsAhead(_:)``): each
    /// batch of `batches` read back from the folder's cache, planned against a copy of the
    /// entries `held` (``plan(_:held:next:contentPath:)``), estimated as a whole plan's files are
    /// (``readAhead(_:)``, ``updatePlan(_:ways:of:)``), summed and let go; then the budget is held
    /// (``holdToBudget(expected:of:release:)``). The block matches are kept in `localCopies`
    /// for the batches' staging.
    ///
    /// - Throws: ``SyncError`` `.overBudget`, before anything is staged.
    func estimate(
        _ batches: [[String]],
        of channel: NewChannel,
        next: HeldRelease,
        held: [String: ReleaseEntry],
        contentPath: String,
        localCopies: LocalCopies
    ) async throws -> PagedEstimate {
        var left = held
        var total = PagedEstimate()
        for batch in batches {
            var planned = try plan(batch, held: &left, next: next, contentPath: contentPath)
            planned.localCopies = localCopies
            let ways = try await readAhead(planned)
            total.add(try updatePlan(planned, ways: ways, of: channel))
        }
        try holdToBudget(expected: total.expectedBytes, of: channel, release: next.number)
        return total
    }
}
