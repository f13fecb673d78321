import DepotClient
import Testing

/// The report of a sync or download that failed files: ``DepotClient/sync(progress:)`` throws
/// then, the report attached (``SyncError/report``). Records an issue when it returned instead,
/// and rethrows any other error.
package func failedReport(_ run: () async throws -> SyncReport) async throws -> SyncReport {
    do {
        let report = try await run()
        Issue.record("the sync returned with \(report.failedCount) failed files instead of throwing")
        return report
    } catch let error as SyncError {
        guard let report = error.report else { throw error }
        #expect(report.failedCount > 0 && error.message.contains("could not be synced"), "\(error)")
        return report
    }
}

extension Result where Success == SyncReport, Failure == any Error {
    /// The report a sync that failed files threw (``failedReport(_:)``).
    package func failedReport() throws -> SyncReport {
        switch self {
        case .success(let report):
            Issue.record("the sync returned with \(report.failedCount) failed files instead of throwing")
            return report
        case .failure(let error as SyncError):
            guard let report = error.report else { throw error }
            return report
        case .failure(let error):
            throw error
        }
    }
}
