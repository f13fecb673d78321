import DepotServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// Requests to a Depot application through Hummingbird's in-process router test client: no
/// socket, no connection layer (deadlines, direct answers, the access log), so a test of API
/// behaviour (publishing, releases, refusals) runs fast and sees only the application.
public struct InProcessConnection: TestHTTPConnection {
    let client: any TestClientProtocol

    /// Builds the application on `configuration` (a temporary public and data folder, the
    /// publish token ``LiveServer/token``) and runs `body` with a connection to its router.
    public static func withPublishing<Result: Sendable>(
        configuration: ServerConfiguration = ServerConfiguration(),
        _ body: @Sendable (inout InProcessConnection) async throws -> Result
    ) async throws -> Result {
        var configuration = configuration
        configuration.publish.tokens = [LiveServer.token]
        configuration.variants = .testing(configuration.variants)
        return try await withTemporaryDirectory { root in
            configuration.publicDirectory = root.appendingPathComponent("public").path
            configuration.dataDirectory = root.appendingPathComponent("data").path
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            let app = try await buildApplication(configuration: configuration, logger: LiveServer.quietLogger)
            return try await app.test(.router) { client in
                var connection = InProcessConnection(client: client)
                try await connection.waitForPublicFolder()
                return try await body(&connection)
            }
        }
    }

    public mutating func request(
        _ method: String = "GET",
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil
    ) async throws -> RawHTTPResponse {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        let response = try await client.executeRequest(
            uri: target,
            method: HTTPRequest.Method(method) ?? .get,
            headers: fields,
            body: body.map { ByteBuffer(bytes: $0) }
        )
        return RawHTTPResponse(
            status: response.status.code,
            fields: response.headers.map { ($0.name.rawName, $0.value) },
            body: Array(response.body.readableBytesView)
        )
    }
}
