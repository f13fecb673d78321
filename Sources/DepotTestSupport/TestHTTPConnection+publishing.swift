import DepotAPI
import Foundation
import Testing

/// The publish token of every test server, on a socket or in process (``LiveServer/token``), and
/// the `Authorization` header that carries it.
public enum PublishToken {
    /// The token.
    public static let secret = LiveServer.token
    /// `Authorization: Bearer` with ``secret``.
    public static let authorization = ("Authorization", "Bearer \(secret)")
}

/// The one way the server's tests publish through the API, over a socket or in process.
extension TestHTTPConnection where Self: ~Copyable {
    /// `PUT /v1/files/{path}` with `data`: a new release of the default channel. Authorised with
    /// ``PublishToken/secret`` unless `headers` say otherwise.
    public mutating func publish(
        _ path: String,
        _ data: Data,
        headers: [(String, String)] = [PublishToken.authorization]
    ) async throws -> RawHTTPResponse {
        try await request("PUT", "/v1/files/\(path)", headers: headers, body: Array(data))
    }

    /// Publishes each of `files` in turn (a release each), expecting each to be stored.
    public mutating func publish(_ files: [(path: String, data: Data)]) async throws {
        for (path, data) in files {
            let reply = try await publish(path, data)
            #expect([200, 201].contains(reply.status), "PUT /v1/files/\(path): \(reply.status) \(reply.bodyText)")
        }
    }

    /// Stores each of `files` as a blob (`PUT /v1/blobs/{sha256}`) and commits them as one release
    /// (`POST /v1/releases`) with the rest of `commit`; its reply.
    public mutating func commit(
        _ files: [(path: String, data: Data)],
        _ commit: CommitRequest = CommitRequest(),
        headers: [(String, String)] = [PublishToken.authorization]
    ) async throws -> RawHTTPResponse {
        var commit = commit
        commit.files = []
        for (path, data) in files {
            let sha256 = Fixture.sha256(data)
            let stored = try await request("PUT", "/v1/blobs/\(sha256)", headers: headers, body: Array(data))
            #expect([200, 201].contains(stored.status), "PUT /v1/blobs/\(sha256): \(stored.status) \(stored.bodyText)")
            commit.files?.append(.init(path: path, sha256: sha256))
        }
        return try await json("POST", "/v1/releases", commit, headers: headers)
    }

    /// `value` sent as JSON to `target`.
    public mutating func json(
        _ method: String,
        _ target: String,
        _ value: some Encodable,
        headers: [(String, String)] = [PublishToken.authorization]
    ) async throws -> RawHTTPResponse {
        try await request(method, target, headers: headers + [("Content-Type", "application/json")], body: Array(try APIJSON.encoder.encode(value)))
    }
}
