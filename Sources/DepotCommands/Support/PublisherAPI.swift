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
        /// The `WWW-Authenticate` challenges of a 401, which tell why the token was refused.
        var challenges: [String] = []

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
        transport: any HTTPTransport,
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
            let response = try await transport.execute(request, timeout: .hours(24))
            do {
                reply = Reply(
                    status: response.status,
                    body: try await response.body.collect(upTo: 64 << 20),
                    challenges: response.headers["WWW-Authenticate"]
                )
            } catch  where response.status.code >= 300 {
                // A refusal that came before the upload's end (a 413 on its Content-Length): the
                // HTTP client fails the exchange once the body it was sending stops short, and
                // the refusal's status is what is left to tell.
                reply = Reply(status: response.status, body: ByteBuffer(), challenges: response.headers["WWW-Authenticate"])
            }
        } catch {
            throw CommandFailure(describeConnectionError(error, server: baseURL))
        }
        guard (200..<300).contains(reply.status.code) || allowing.contains(reply.status.code) else {
            let message = (try? APIJSON.decode(ErrorReply.self, from: reply.body.readableBytesView))?.error.message ?? reply.status.reasonPhrase
            throw CommandFailure(
                Self.refusal(method: "\(method)", path: path, status: reply.status.code, message: message, challenges: reply.challenges)
            )
        }
        return reply
    }

    /// The line for a refusal, in whole sentences: the route asked, the status, the server's
    /// message, and the one next step that fits, where there is one. A 401 says which side must
    /// act: a server with no token configured answers a token without an `error` in its
    /// challenge (no token given here can help: its operator sets `access.tokens`), one that has
    /// tokens answers `error="invalid_token"` (this command must be given one of them).
    static func refusal(method: String, path: String, status: UInt, message: String, challenges: [String] = []) -> String {
        let route = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        let told = sentence(message)
        switch status {
        case 401 where challenges.contains(where: { $0.contains("error=\"invalid_token\"") }):
            return "the server refused the token (401): \(told) Give one that its access.tokens lists, with --token-file FILE or DEPOT_TOKEN."
        case 401 where !challenges.isEmpty && !challenges.contains(where: { $0.contains("error=") }):
            return "the server refused the token (401): \(told) That is the server's setting: no token given here helps until its operator sets one."
        case 401:
            return "the server refused the token (401): \(told)"
        case 403:
            return "the server refused \(method) \(route) (403): \(told) Give a token with that scope, with --token-file FILE or DEPOT_TOKEN."
        case 404 where route.hasPrefix("/v1/channels/"):
            return "the server refused \(method) \(route) (404): \(told) depot release ls lists the releases and channels."
        default:
            return "the server refused \(method) \(route) (\(status)): \(told)"
        }
    }

    /// `text` as a whole sentence: ending in a full stop unless it ends in one already.
    static func sentence(_ text: String) -> String {
        text.last.map { ".!?".contains($0) } == true ? text : text + "."
    }

    /// The token: from `file`, or else `DEPOT_TOKEN` in `environment`.
    static func readToken(file: PathArgument?, in environment: CommandEnvironment) throws -> String {
        if let file {
            guard let text = try? String(contentsOfFile: file.path(in: environment), encoding: .utf8) else {
                throw CommandFailure("cannot read the token file \(file)")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let token = environment.variables["DEPOT_TOKEN"], !token.isEmpty else {
            throw CommandFailure("no token: use --token-file FILE or set DEPOT_TOKEN")
        }
        return token
    }
}
