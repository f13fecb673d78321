import DepotConcurrency
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one data task of a ``TransferSession`` does with its response: a subclass says what it
/// does with the response (``accept(_:task:)``) and with each piece of the body
/// (``receive(_:task:)``), and keeps its own result. Cancellation, the redirect rule
/// (``OriginPolicy``) and completion are the session's.
class DataTaskDelegate: @unchecked Sendable {
    // Touched only on the session's serial delegate queue, then read once the task completed.
    private var failure: (any Error)?
    /// The task's end and who waits for it, in either order (``wait(_:)``, ``end(_:)``).
    private let ending = Locked(Ending())
    /// Body bytes received so far, read by the session's watch of ``TransferLimits``.
    private let received = Locked<Int64>(0)
    var bytesReceived: Int64 { received.withLock { $0 } }

    /// Sends `request` on `session` and returns when the body has been received whole.
    /// - Throws: what ``accept(_:task:)`` or ``receive(_:task:)`` threw, or ``SyncError`` `.network`
    ///   (``networkFailure(_:task:)``) when the transfer failed, was too slow, or was not done by
    ///   `deadline` seconds.
    func run(_ request: URLRequest, session: TransferSession, deadline: TimeInterval? = nil) async throws {
        try await session.run(request, handler: self, deadline: deadline)
    }

    /// Checks the response before any of its body; throwing cancels the task.
    func accept(_ response: HTTPURLResponse, task: URLSessionDataTask) throws {}

    /// Takes a piece of the body; throwing cancels the task.
    func receive(_ data: Data, task: URLSessionDataTask) throws {}

    /// The error for a transfer of `task` that failed on the network.
    func networkFailure(_ error: any Error, task: URLSessionTask) -> SyncError {
        let origin = task.originalRequest?.url.map { "\($0.scheme ?? "http")://\($0.host ?? "")\($0.port.map { ":\($0)" } ?? "")" }
        return SyncError(.network, "cannot reach \(origin ?? "the server"): \(error.localizedDescription)")
    }

    func didReceive(_ response: URLResponse, task: URLSessionDataTask) -> URLSession.ResponseDisposition {
        do {
            guard let http = response as? HTTPURLResponse else { throw SyncError(.server, "not an HTTP response") }
            try accept(http, task: task)
            return .allow
        } catch {
            failure = error
            return .cancel
        }
    }

    func didReceive(_ data: Data, task: URLSessionDataTask) {
        received.withLock { $0 += Int64(data.count) }
        guard failure == nil else { return }
        do {
            try receive(data, task: task)
        } catch {
            failure = error
            task.cancel()
        }
    }

    /// Fails the transfer with `error`, for a reason of the session's (``TransferBudget``).
    func stop(_ error: any Error, task: URLSessionDataTask) {
        guard failure == nil else { return }
        failure = error
        task.cancel()
    }

    func didComplete(task: URLSessionTask, error: (any Error)?) {
        if let failure {
            end(.failure(failure))
        } else if let error {
            end(.failure(networkFailure(error, task: task)))
        } else {
            end(.success(()))
        }
    }

    /// The task's end, and the caller waiting for it: the end may come first (a task cancelled
    /// before it was started is told ended at once), and is then kept for the wait.
    private struct Ending {
        var waiting: CheckedContinuation<Void, any Error>?
        var outcome: Result<Void, any Error>?
    }

    /// Waits for the task's end with `continuation`; `false` when it has ended already, and
    /// `continuation` is resumed with how.
    func wait(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        let outcome = ending.withLock { ending in
            if ending.outcome == nil { ending.waiting = continuation }
            return ending.outcome
        }
        guard let outcome else { return true }
        continuation.resume(with: outcome)
        return false
    }

    /// Ends the wait with `outcome`, the first time only: later ends are ignored.
    func end(_ outcome: Result<Void, any Error>) {
        let waiting = ending.withLock { ending -> CheckedContinuation<Void, any Error>? in
            guard ending.outcome == nil else { return nil }
            ending.outcome = outcome
            defer { ending.waiting = nil }
            return ending.waiting
        }
        waiting?.resume(with: outcome)
    }
}
