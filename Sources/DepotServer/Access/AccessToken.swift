import Crypto
import DepotManifest

/// One configured token: its name (what the audit trail and logs say, never the token), its
/// scopes, and the SHA-256 of the token itself (compared in constant time).
public struct AccessToken: Sendable, Hashable {
    public let name: String
    public let scopes: AccessScopes
    let digest: [UInt8]

    public init(name: String, token: String, scopes: AccessScopes) {
        self.name = name
        self.scopes = scopes
        self.digest = Array(SHA256.hash(data: Array(token.utf8)))
    }

    /// Reads one entry of `access.tokens`: words separated by spaces, in any order.
    ///
    ///     name=ci publish=beta+nightly read token=3kq…
    ///     name=release-manager promote=stable rollouts=stable read token=…
    ///     name=ops all token=…
    ///
    /// `name=` (letters, digits, `-`, `_`, `.`) and `token=` (RFC 6750 b64token) are required;
    /// `publish`, `promote` and `rollouts` alone mean every channel, or `=` and channels joined
    /// by `+`; `read`; `all` is every scope. A mistake names the entry by its position alone, and
    /// a word by its key when the key is one of these, else by its place: never a value, since a
    /// token pasted where a name, a key or a word belongs would otherwise be printed (issue 57).
    /// The keys of an entry: the only words of one an error may print.
    static let keys: Set<String> = ["name", "token", "publish", "promote", "rollouts", "read", "all"]

    public init(entry: String, position: Int) throws(ConfigurationError) {
        var name: String?
        var token: String?
        var scopes = AccessScopes()
        func fail(_ message: String) -> ConfigurationError {
            ConfigurationError("access.tokens entry \(position): \(message)")
        }
        let words = entry.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        for (place, word) in words.enumerated() {
            let (key, value) = word.firstIndex(of: "=").map { (String(word[..<$0]), String(word[word.index(after: $0)...])) } ?? (word, nil)
            switch key {
            case "name":
                guard let value, !value.isEmpty, value.count <= 64, value.allSatisfy(Self.isNameCharacter) else {
                    throw fail("name= takes 1 to 64 letters, digits, - _ .")
                }
                name = value
            case "token":
                guard let value else { throw fail("token= needs a value") }
                do {
                    try BearerAuthenticator.validate(value, key: "the token")
                } catch {
                    throw fail("the token is not an RFC 6750 b64token (letters, digits and - . _ ~ + /, then any =)")
                }
                token = value
            case "publish", "promote", "rollouts":
                let channels: AccessScopes.Channels
                if let value {
                    let names = value.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
                    guard !names.contains(where: \.isEmpty) else { throw fail("\(key)= takes channel names joined by +") }
                    if let bad = names.first(where: { ChannelName.problem($0) != nil }) {
                        throw fail("\(key)= names a channel that cannot be: \(ChannelName.problem(bad) ?? "")")
                    }
                    channels = .only(Set(names))
                } else {
                    channels = .all
                }
                switch key {
                case "publish": scopes.publish = channels
                case "promote": scopes.promote = channels
                default: scopes.rollouts = channels
                }
            case "read" where value == nil: scopes.read = true
            case "all" where value == nil: scopes = .all
            default:
                let isKey = Self.keys.contains(key.lowercased())
                let shown = isKey ? (value == nil ? key : "\(key)=…") : "word \(place + 1)"
                throw fail(
                    "\(shown) is not one of name= token= publish[=…] promote[=…] rollouts[=…] read all"
                        + (isKey && !Self.keys.contains(key) ? " (keys are lower case)" : "")
                )
            }
        }
        guard let name else { throw fail("name= is missing") }
        guard let token else { throw fail("token= is missing") }
        guard scopes != AccessScopes() else { throw fail("it has no scope: give publish, promote, rollouts, read or all") }
        self.init(name: name, token: token, scopes: scopes)
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "-_.".contains(character))
    }
}

extension ServerConfiguration {
    /// Every token the server takes for its API: ``accessTokens``, then each of
    /// `publish.tokens` with every scope (`publish-token`, `publish-token-2`…: set-ups from
    /// before scopes keep working), then each of `dashboard.readTokens` with `read`.
    public var allTokens: [AccessToken] {
        func numbered(_ base: String, _ index: Int) -> String { index == 0 ? base : "\(base)-\(index + 1)" }
        return accessTokens
            + publish.tokens.enumerated().map { AccessToken(name: numbered("publish-token", $0.offset), token: $0.element, scopes: .all) }
            + dashboard.readTokens.enumerated().map {
                AccessToken(name: numbered("dashboard-read-token", $0.offset), token: $0.element, scopes: AccessScopes(read: true))
            }
    }
}

extension AccessToken {
    /// Refuses two tokens of one name (the audit trail could not tell them apart) or two
    /// entries of one token (which scopes would it have?).
    static func checkDistinct(_ tokens: [AccessToken]) throws(ConfigurationError) {
        var names: Set<String> = []
        var digests: Set<[UInt8]> = []
        for token in tokens {
            guard names.insert(token.name).inserted else { throw ConfigurationError("Two tokens are named \(token.name): give each its own name=") }
            guard digests.insert(token.digest).inserted else {
                throw ConfigurationError("The token named \(token.name) is configured twice: each token may have one entry")
            }
        }
    }
}
