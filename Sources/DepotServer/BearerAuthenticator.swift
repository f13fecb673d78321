import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Checks `Authorization: Bearer <token>` (RFC 6750) against the configured tokens, and says
/// which one it is (``AccessToken``: its name and scopes).
///
/// The presented token is every byte after `Bearer` and its separating spaces, compared byte
/// for byte: nothing is trimmed or normalized, so no Unicode space can stand for a token.
/// Tokens are compared through their SHA-256, without an early exit, so the time a comparison
/// takes says nothing about how much of a guess was right. Tokens are never logged.
struct BearerAuthenticator: Sendable {
    private let tokens: [AccessToken]
    /// Whether a token is also taken as the password of `Basic` credentials, and 401s also
    /// challenge for them: only while the dashboard, whose browsers send them, is on.
    private let acceptsBasic: Bool

    /// - Precondition: every token passed ``validate(_:key:)``; the configuration reader checks.
    init(tokens: [AccessToken], acceptsBasic: Bool = false) {
        self.tokens = tokens
        self.acceptsBasic = acceptsBasic
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

    /// The request's token; throws 401 with `WWW-Authenticate: Bearer` unless it carries a valid one.
    ///
    /// With `acceptsBasic`, the token may also come as the password of `Basic` credentials
    /// (RFC 7617), which a browser sends by itself once its user has typed them: that is how the
    /// dashboard's buttons call this API. A browser would send them on a cross-site form post
    /// too, so a request with `Basic` credentials and an unsafe method must carry
    /// `X-Requested-With`, which another site's page cannot add without a CORS preflight that
    /// Depot never grants.
    @discardableResult
    func authenticate(_ request: Request) throws -> AccessToken {
        guard !tokens.isEmpty else {
            throw unauthorized("No token is configured: set access.tokens (or publish.tokens) to use this API", error: nil)
        }
        guard let field = request.headers[.authorization] else {
            throw unauthorized("This needs Authorization: Bearer <token>", error: nil)
        }
        guard let presented = Self.credentials(field), acceptsBasic || !presented.isBasic else {
            throw unauthorized("This needs Authorization: Bearer <token>", error: "invalid_request")
        }
        guard let token = accepts(presented.token) else { throw unauthorized("The token is not valid", error: "invalid_token") }
        if presented.isBasic, ![.get, .head, .options].contains(request.method), request.headers[.xRequestedWith] == nil {
            throw HTTPError(.forbidden, message: "A browser's request must carry X-Requested-With")
        }
        return token
    }

    /// The configured token `token` is, compared in constant time: every configured one is
    /// compared whole, whichever matches.
    func accepts(_ token: [UInt8]) -> AccessToken? {
        let digest = Array(SHA256.hash(data: token))
        var matched: AccessToken?
        for expected in tokens {
            var difference: UInt8 = 0
            for (a, b) in zip(expected.digest, digest) { difference |= a ^ b }
            if difference == 0 { matched = expected }
        }
        return matched
    }

    /// The token an `Authorization` field presents: that of `Bearer 1*SP token` (RFC 6750 §2.1),
    /// or the password of `Basic` credentials (RFC 7617, the user name ignored); schemes in any
    /// case. `nil` for another scheme or no token.
    static func credentials(_ field: String) -> (token: [UInt8], isBasic: Bool)? {
        let bytes = Array(field.utf8)
        func value(ofScheme name: String) -> ArraySlice<UInt8>? {
            let scheme = Array(name.utf8)
            guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 }), bytes[scheme.count] == UInt8(ascii: " ") else {
                return nil
            }
            let value = bytes.dropFirst(scheme.count).drop { $0 == UInt8(ascii: " ") }
            return value.isEmpty ? nil : value
        }
        if let token = value(ofScheme: "bearer") { return (Array(token), false) }
        guard let encoded = value(ofScheme: "basic"), let decoded = Data(base64Encoded: Data(encoded)),
            let colon = decoded.firstIndex(of: UInt8(ascii: ":")), colon + 1 < decoded.endIndex
        else { return nil }
        return (Array(decoded[(colon + 1)...]), true)
    }

    private func unauthorized(_ message: String, error: String?) -> HTTPError {
        var fields: HTTPFields = [.wwwAuthenticate: "Bearer realm=\"depot\"" + (error.map { ", error=\"\($0)\"" } ?? "")]
        if acceptsBasic {
            // The dashboard's realm too, in a field of its own (browsers read one challenge a
            // field): a browser signed in there then sends its credentials to this API (the buttons).
            fields.append(HTTPField(name: .wwwAuthenticate, value: "Basic realm=\"\(DashboardAccess.realm)\""))
        }
        return HTTPError(.unauthorized, headers: fields, message: message)
    }
}

extension HTTPField.Name {
    /// Set by the dashboard's script on the requests it sends (see ``BearerAuthenticator/authorize(_:)``).
    static let xRequestedWith = Self("X-Requested-With")!
}
