import DepotServer
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// Requests to a Depot application through Hummingbird's in-process router test client: no
/// socket, no connection layer (deadlines, direct answers, the access log), so a test of API
/// behaviour (publishing, releases, refusals) runs fast and sees only the application.
public struct InProcessConnection: TestHTTPConnection {
    let client: any TestClientProtocol

    /// Builds the application as ``InProcessServer/withPublishing(configuration:prepare:_:)``
    /// does (the publish token ``LiveServer/token``) and runs `body` with a connection to its router.
    public static func withPublishing<Result: Sendable>(
        configuration: ServerConfiguration = ServerConfiguration(),
        _ body: @Sendable (inout InProcessConnection) async throws -> Result
    ) async throws -> Result {
        try await InProcessServer.withPublishing(configuration: configuration) { server in
            try await server.connection { try await body(&$0) }
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
