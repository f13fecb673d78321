import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request whose body is collected in memory, up to a limit: past `maximumBytes` the
/// transfer stops and fails, so a hostile or broken server cannot fill the client's memory.
/// Redirects are followed only on the same origin (``OriginPolicy``).
final class BoundedFetch: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Touched only on the session's serial delegate queue, then read once the task completed.
    private let maximumBytes: Int
    private var data = Data()
    private var response: HTTPURLResponse?
    private var failure: (any Error)?
    private var continuation: CheckedContinuation<(HTTPURLResponse, Data), any Error>?

    private init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    /// Sends `request` and returns the response with its whole body.
    /// - Throws: ``SyncError`` `.corrupt` past `maximumBytes`, `.network` when the transfer fails.
    static func run(_ request: URLRequest, configuration: URLSessionConfiguration, maximumBytes: Int) async throws -> (HTTPURLResponse, Data) {
        let fetch = BoundedFetch(maximumBytes: maximumBytes)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: fetch, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                fetch.continuation = continuation
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
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
        guard let http = response as? HTTPURLResponse else {
            failure = SyncError(.server, "not an HTTP response")
            return completionHandler(.cancel)
        }
        self.response = http
        if http.expectedContentLength > Int64(maximumBytes) {
            failure = tooLarge(dataTask)
            return completionHandler(.cancel)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard failure == nil else { return }
        guard self.data.count + data.count <= maximumBytes else {
            failure = tooLarge(dataTask)
            return dataTask.cancel()
        }
        self.data.append(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let continuation = self.continuation
        self.continuation = nil
        if let failure {
            continuation?.resume(throwing: failure)
        } else if let error {
            continuation?.resume(
                throwing: SyncError(.network, "cannot reach \(task.originalRequest?.url?.absoluteString ?? ""): \(error.localizedDescription)")
            )
        } else if let response {
            continuation?.resume(returning: (response, data))
        } else {
            continuation?.resume(throwing: SyncError(.server, "no response"))
        }
    }

    private func tooLarge(_ task: URLSessionTask) -> SyncError {
        SyncError(.corrupt, "\(task.originalRequest?.url?.path ?? "the response") is larger than the limit of \(maximumBytes) bytes")
    }
}
