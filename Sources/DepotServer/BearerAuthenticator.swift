import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Checks `Authorization: Bearer <token>` (RFC 6750) against the configured publish tokens.
///
/// Tokens are compared through their SHA-256, byte for byte without an early exit, so the time a
/// comparison takes says nothing about how much of a guess was right. Tokens are never logged.
struct BearerAuthenticator: Sendable {
    private let tokenDigests: [[UInt8]]

    init(tokens: [String]) {
        tokenDigests = tokens.map { Array(SHA256.hash(data: Array($0.utf8))) }
    }

    /// Throws 401 with `WWW-Authenticate: Bearer` unless the request carries a valid token.
    func authorize(_ request: Request) throws {
        guard !tokenDigests.isEmpty else {
            throw Self.unauthorized("Publishing is disabled: no publish token is configured", error: nil)
        }
        guard let field = request.headers[.authorization] else {
            throw Self.unauthorized("This needs Authorization: Bearer <token>", error: nil)
        }
        let parts = field.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw Self.unauthorized("This needs Authorization: Bearer <token>", error: "invalid_request")
        }
        let presented = Array(SHA256.hash(data: Array(parts[1].trimmingCharacters(in: .whitespaces).utf8)))
        var matched = false
        for digest in tokenDigests {
            var difference: UInt8 = 0
            for (a, b) in zip(digest, presented) { difference |= a ^ b }
            matched = matched || difference == 0
        }
        guard matched else { throw Self.unauthorized("The token is not valid", error: "invalid_token") }
    }

    private static func unauthorized(_ message: String, error: String?) -> HTTPError {
        let challenge = "Bearer realm=\"depot\"" + (error.map { ", error=\"\($0)\"" } ?? "")
        return HTTPError(.unauthorized, headers: [.wwwAuthenticate: challenge], message: message)
    }
}
