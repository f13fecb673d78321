import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Checks `Authorization: Bearer <token>` (RFC 6750) against the configured tokens.
///
/// The presented token is every byte after `Bearer` and its separating spaces, compared byte
/// for byte: nothing is trimmed or normalized, so no Unicode space can stand for a token.
/// Tokens are compared through their SHA-256, without an early exit, so the time a comparison
/// takes says nothing about how much of a guess was right. Tokens are never logged.
struct BearerAuthenticator: Sendable {
    private let tokenDigests: [[UInt8]]

    /// - Precondition: every token passed ``validate(_:key:)``; the configuration reader checks.
    init(tokens: [String]) {
        tokenDigests = tokens.map { Array(SHA256.hash(data: Array($0.utf8))) }
    }

    /// Checks that `token` can be presented as a bearer token: one or more of the RFC 6750
    /// `b64token` characters (`A–Z a–z 0–9 - . _ ~ + /`), then any `=`. An empty token, or one
    /// with spaces or other characters, is refused at start-up instead of admitting requests
    /// nobody meant to admit. `key` names the setting in the message.
    static func validate(_ token: String, key: String) throws {
        let bytes = Array(token.utf8)
        let body = bytes.prefix { $0 != UInt8(ascii: "=") }
        guard !body.isEmpty, body.allSatisfy(isTokenCharacter), bytes.dropFirst(body.count).allSatisfy({ $0 == UInt8(ascii: "=") }) else {
            throw ConfigurationError(
                bytes.isEmpty
                    ? "\(key) holds an empty token: remove it, or give a token of letters, digits and - . _ ~ + /"
                    : "\(key) holds a token with a character other than letters, digits and - . _ ~ + / (RFC 6750 b64token)"
            )
        }
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~+/".utf8.contains(byte)
        }
    }

    /// Throws 401 with `WWW-Authenticate: Bearer` unless the request carries a valid token.
    func authorize(_ request: Request) throws {
        guard !tokenDigests.isEmpty else {
            throw Self.unauthorized("Publishing is disabled: no publish token is configured", error: nil)
        }
        guard let field = request.headers[.authorization] else {
            throw Self.unauthorized("This needs Authorization: Bearer <token>", error: nil)
        }
        guard let presented = Self.credentials(field) else {
            throw Self.unauthorized("This needs Authorization: Bearer <token>", error: "invalid_request")
        }
        let digest = Array(SHA256.hash(data: presented))
        var matched = false
        for expected in tokenDigests {
            var difference: UInt8 = 0
            for (a, b) in zip(expected, digest) { difference |= a ^ b }
            matched = matched || difference == 0
        }
        guard matched else { throw Self.unauthorized("The token is not valid", error: "invalid_token") }
    }

    /// The token of `Bearer 1*SP token` (RFC 6750 §2.1, the scheme in any case), as bytes; `nil`
    /// for another scheme or no token.
    static func credentials(_ field: String) -> [UInt8]? {
        let bytes = Array(field.utf8)
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 }), bytes[scheme.count] == UInt8(ascii: " ") else {
            return nil
        }
        let token = bytes.dropFirst(scheme.count).drop { $0 == UInt8(ascii: " ") }
        return token.isEmpty ? nil : Array(token)
    }

    private static func unauthorized(_ message: String, error: String?) -> HTTPError {
        let challenge = "Bearer realm=\"depot\"" + (error.map { ", error=\"\($0)\"" } ?? "")
        return HTTPError(.unauthorized, headers: [.wwwAuthenticate: challenge], message: message)
    }
}
