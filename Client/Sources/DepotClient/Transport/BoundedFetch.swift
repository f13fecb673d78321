import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request whose body is collected in memory, up to a limit: past `maximumBytes` the
/// transfer stops and fails, so a hostile or broken server cannot fill the client's memory.
final class BoundedFetch: DataTaskDelegate, @unchecked Sendable {
    // Touched only on the session's serial delegate queue, then read once the task completed.
    private let maximumBytes: Int
    private var data = Data()
    private var response: HTTPURLResponse?

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    /// Sends `request` and returns the response with its whole body.
    /// - Throws: ``SyncError`` `.corrupt` past `maximumBytes`, `.network` when the transfer fails
    ///   or is not done by `deadline` seconds.
    static func run(
        _ request: URLRequest,
        session: TransferSession,
        maximumBytes: Int,
        deadline: TimeInterval? = nil
    ) async throws -> (HTTPURLResponse, Data) {
        try await BoundedFetch(maximumBytes: maximumBytes).fetch(request, session: session, deadline: deadline)
    }

    /// Sends `request` and returns the response with its whole body; ``bytesReceived`` counts
    /// what arrived even when this throws.
    func fetch(_ request: URLRequest, session: TransferSession, deadline: TimeInterval?) async throws -> (HTTPURLResponse, Data) {
        try await run(request, session: session, deadline: deadline)
        guard let response else { throw SyncError(.server, "no response") }
        return (response, data)
    }

    override func accept(_ response: HTTPURLResponse, task: URLSessionDataTask) throws {
        self.response = response
        if response.expectedContentLength > Int64(maximumBytes) { throw tooLarge(task) }
    }

    override func receive(_ data: Data, task: URLSessionDataTask) throws {
        guard self.data.count + data.count <= maximumBytes else { throw tooLarge(task) }
        self.data.append(data)
    }

    private func tooLarge(_ task: URLSessionTask) -> SyncError {
        SyncError(.corrupt, "\(task.originalRequest?.url?.path ?? "the response") is larger than the limit of \(maximumBytes) bytes")
    }
}
