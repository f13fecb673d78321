import AsyncHTTPClient
import DepotAPI
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// The server's publisher API (`/v1/…`) as the CLI calls it: the token on every request, JSON
/// replies, and every refusal turned into one ``CommandFailure`` line.
struct PublisherAPI {
    let baseURL: String
    let token: String

    struct Reply {
        let status: HTTPResponseStatus
        let body: ByteBuffer

        /// The body as `type`; a body that is not one (a field renamed or missing) is a failure,
        /// never a default value.
        func decoded<Value: Decodable>(_ type: Value.Type) throws -> Value {
            do {
                return try APIJSON.decode(type, from: body.readableBytesView)
            } catch {
                throw CommandFailure("the server's reply is not the \(type) expected: \(error)")
            }
        }

        /// The body as text, for `--json`.
        var text: String { String(decoding: body.readableBytesView, as: UTF8.self) }
    }

    /// Sends one request; a status outside 2xx and `allowing` throws with the server's message.
    func send(
        _ method: HTTPMethod,
        _ path: String,
        json: (some Encodable)? = String?.none,
        body: HTTPClientRequest.Body? = nil,
        headers: [String: String] = [:],
        client: HTTPClient,
        allowing: Set<UInt> = []
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try APIJSON.encoder.encode(json)))
        } else if let body {
            request.body = body
        }
        let reply: Reply
        do {
            let response = try await client.execute(request, timeout: .hours(24))
            do {
                reply = Reply(status: response.status, body: try await response.body.collect(upTo: 64 << 20))
            } catch  where response.status.code >= 300 {
                // A refusal that came before the upload's end (a 413 on its Content-Length): the
                // HTTP client fails the exchange once the body it was sending stops short, and
                // the refusal's status is what is left to tell.
                reply = Reply(status: response.status, body: ByteBuffer())
            }
        } catch {
            throw CommandFailure(describeConnectionError(error, server: baseURL))
        }
        guard (200..<300).contains(reply.status.code) || allowing.contains(reply.status.code) else {
            let message = (try? APIJSON.decode(ErrorReply.self, from: reply.body.readableBytesView))?.error.message ?? reply.status.reasonPhrase
            throw CommandFailure(Self.refusal(method: method, path: path, status: reply.status.code, message: message))
        }
        return reply
    }

    /// The line for a refusal: the route asked, the status, the server's message, and the next
    /// step where there is one.
    static func refusal(method: HTTPMethod, path: String, status: UInt, message: String) -> String {
        let route = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        let next: String =
            switch status {
            case 401: "; give a token with --token-file FILE or DEPOT_TOKEN"
            case 403: "; a token with that scope can"
            case 404 where route.hasPrefix("/v1/channels/"): "; depot release ls lists the releases and channels"
            default: ""
            }
        let what = status == 401 ? "the token" : "\(method) \(route)"
        return "the server refused \(what) (\(status)): \(message)\(next)"
    }

    /// The token: from `file`, or else `DEPOT_TOKEN`.
    static func readToken(file: String?) throws -> String {
        if let file {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw CommandFailure("cannot read the token file \(file)")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let token = ProcessInfo.processInfo.environment["DEPOT_TOKEN"], !token.isEmpty else {
            throw CommandFailure("no token: use --token-file FILE or set DEPOT_TOKEN")
        }
        return token
    }
}
