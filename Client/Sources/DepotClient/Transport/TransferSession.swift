import DepotConcurrency
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One URLSession for a whole sync: its connections are kept alive and reused by every request
/// of the sync, a few at a time, instead of a new connection per file.
///
/// The session's delegate is this object; it hands each task's callbacks to that task's
/// ``DataTaskDelegate``, so every transfer still checks its own response and body.
final class TransferSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let handlers = Locked<[Int: DataTaskDelegate]>([:])
    private let budget = Locked(TransferBudget())
    // Set once in init, before any task runs.
    private var session: URLSession!
    /// The rate every transfer must keep (``TransferLimits``, without a deadline).
    let limits: TransferLimits

    init(configuration: URLSessionConfiguration, limits: TransferLimits) {
        self.limits = limits
        super.init()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// Holds every transfer from now on to `limit` bytes in all (``TransferBudget``).
    func limitTransfers(to limit: Int64) {
        budget.withLock { $0 = TransferBudget(limit: limit) }
    }

    /// Throws ``SyncError`` `.overBudget` unless a transfer of at most `bytes` more fits the
    /// budget; the sync then starts no other.
    func admit(_ bytes: Int64) throws {
        try budget.withLock { budget in
            guard budget.admits(bytes) else { throw budget.error }
        }
    }

    /// Lets transfers under way end, then releases the session.
    func finish() {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request`, with `handler` receiving its callbacks, and returns when the body has
    /// been received whole. A transfer slower than ``limits`` allow, or not done by `deadline`
    /// seconds, is cancelled and fails.
    func run(_ request: URLRequest, handler: DataTaskDelegate, deadline: TimeInterval? = nil) async throws {
        var watched = limits
        watched.deadline = deadline
        let limits = watched
        try admit(0)
        let what = request.url?.path ?? "the answer"
        let task = session.dataTask(with: request)
        handlers.withLock { $0[task.taskIdentifier] = handler }
        // Told its end already, unless it was cancelled before it started.
        defer { handlers.withLock { $0[task.taskIdentifier] = nil } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        guard handler.wait(continuation) else { return }
                        // Cancelled before it started: the task's end may never be told (the
                        // cancel was lost, and with it the check's turn), so it ends here.
                        guard !Task.isCancelled else { return handler.end(.failure(CancellationError())) }
                        task.resume()
                    }
                } onCancel: {
                    task.cancel()
                }
            }
            group.addTask {
                try await limits.watch({ handler.bytesReceived }, what: what)
            }
            // The transfer's end, or the watch's error, whichever comes first, ends the other.
            try await group.next()
            group.cancelAll()
        }
    }

    private func handler(for task: URLSessionTask) -> DataTaskDelegate? {
        handlers.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(OriginPolicy.redirect(request, from: task.originalRequest))
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(handler(for: dataTask)?.didReceive(response, task: dataTask) ?? .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let refusal = budget.withLock { $0.receive(Int64(data.count)) ? nil : $0.error }
        if let refusal {
            handler(for: dataTask)?.stop(refusal, task: dataTask)
        } else {
            handler(for: dataTask)?.didReceive(data, task: dataTask)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let handler = handlers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        handler?.didComplete(task: task, error: error)
    }
}
