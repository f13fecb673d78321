import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs one URLSession data task with itself as the delegate: the session, cancellation,
/// the redirect rule (``OriginPolicy``) and completion are here; a subclass says what it does
/// with the response (``accept(_:task:)``) and with each piece of the body
/// (``receive(_:task:)``), and keeps its own result.
///
/// A class to subclass, not a generic one: URLSession's delegate methods must stay visible to
/// Objective-C on Apple's systems.
class DataTaskDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Touched only on the session's serial delegate queue, then read once the task completed.
    private var failure: (any Error)?
    private var continuation: CheckedContinuation<Void, any Error>?

    /// Sends `request` and returns when the body has been received whole.
    /// - Throws: what ``accept(_:task:)`` or ``receive(_:task:)`` threw, or ``SyncError`` `.network`
    ///   (``networkFailure(_:task:)``) when the transfer failed.
    func run(_ request: URLRequest, configuration: URLSessionConfiguration) async throws {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                self.continuation = continuation
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
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
        do {
            guard let http = response as? HTTPURLResponse else { throw SyncError(.server, "not an HTTP response") }
            try accept(http, task: dataTask)
            completionHandler(.allow)
        } catch {
            failure = error
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard failure == nil else { return }
        do {
            try receive(data, task: dataTask)
        } catch {
            failure = error
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let continuation = self.continuation
        self.continuation = nil
        if let failure {
            continuation?.resume(throwing: failure)
        } else if let error {
            continuation?.resume(throwing: networkFailure(error, task: task))
        } else {
            continuation?.resume()
        }
    }
}
