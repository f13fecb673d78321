import DepotAPI
import Testing

@testable import DepotServer

/// The one rule of what a token may do, and the form `access.tokens` takes, as tables.
@Suite("Access scopes")
struct AccessScopesTests {
    static let ci = AccessScopes(publish: .only(["beta", "nightly"]))
    static let manager = AccessScopes(promote: .only(["stable"]), rollouts: .all, read: true)

    @Test(
        "allows(action, channel): a channel list allows those channels, `nil` asks for some channel, read has no channel",
        arguments: [
            (ci, AccessAction.publish, "beta", true),
            (ci, .publish, "nightly", true),
            (ci, .publish, "stable", false),
            (ci, .publish, nil, true),
            (ci, .promote, "beta", false),
            (ci, .promote, nil, false),
            (ci, .rollouts, "beta", false),
            (ci, .read, nil, false),
            (manager, .promote, "stable", true),
            (manager, .promote, "beta", false),
            (manager, .promote, nil, true),
            (manager, .rollouts, "anything", true),
            (manager, .publish, nil, false),
            (manager, .read, nil, true),
            (AccessScopes.all, .publish, "x", true),
            (AccessScopes.all, .read, nil, true),
            (AccessScopes(publish: .only([])), .publish, nil, false),
            (AccessScopes(), .publish, "beta", false),
        ] as [(AccessScopes, AccessAction, String?, Bool)]
    )
    func allows(scopes: AccessScopes, action: AccessAction, channel: String?, allowed: Bool) {
        #expect(scopes.allows(action, channel: channel) == allowed)
    }

    @Test(
        "an access.tokens entry: its words in any order",
        arguments: [
            ("name=ci publish=beta+nightly token=abc", "ci", ci),
            ("token=abc name=ci  publish=beta+nightly", "ci", ci),
            ("name=m promote=stable rollouts read token=abc", "m", manager),
            ("name=ops all token=a-b.c_d~e+f/g==", "ops", AccessScopes.all),
            ("name=r read token=abc", "r", AccessScopes(read: true)),
            ("name=p publish token=abc", "p", AccessScopes(publish: .all)),
        ] as [(String, String, AccessScopes)]
    )
    func entries(entry: String, name: String, scopes: AccessScopes) throws {
        let token = try AccessToken(entry: entry, position: 1)
        #expect(token.name == name && token.scopes == scopes)
        #expect(
            token
                == AccessToken(
                    name: name,
                    token: entry.split(separator: " ").first { $0.hasPrefix("token=") }!.dropFirst(6).description,
                    scopes: scopes
                )
        )
    }

    @Test(
        "a bad entry is refused in one line that names it by position, never by a value: a token mistyped anywhere is not printed",
        arguments: [
            ("publish token=abc", "entry 2: name= is missing"),
            ("name=ci publish", "entry 2: token= is missing"),
            ("name=ci token=abc", "entry 2: it has no scope"),
            ("name=ci publish=beta++x token=abc", "entry 2: publish= takes channel names joined by +"),
            ("name=ci write token=abc", "entry 2: word 2 is not one of"),
            ("name=ci read=yes token=abc", "entry 2: read=… is not one of"),
            ("name=c/i read token=abc", "entry 2: name= takes"),
            ("name=ci read token=bad,token", "entry 2: the token is not an RFC 6750 b64token"),
            ("name=ci read token=ab\u{A0}c", "entry 2: the token is not"),
            ("name=ci publish=Beta token=abc", "entry 2: publish= names a channel that cannot be"),
            ("name=ci promote=stable+../x token=abc", "entry 2: promote= names a channel that cannot be"),
            // Issue 57, defect 12: each way of mistyping the token printed it.
            (
                "name=ci read Token=abc",
                "entry 2: Token=… is not one of name= token= publish[=…] promote[=…] rollouts[=…] read all (keys are lower case)"
            ),
            ("name=ci read TOKEN=abc", "entry 2: TOKEN=… is not one of"),
            ("name=ci read secret=abc", "entry 2: word 3 is not one of"),
            ("name=ci read abc", "entry 2: word 3 is not one of"),
            ("name=ci read abc==", "entry 2: word 3 is not one of"),
            ("name=ci read token=ab abc", "entry 2: word 4 is not one of"),
            ("name=abc read", "entry 2: token= is missing"),
            ("name=abc/+= read token=xyz", "entry 2: name= takes"),
        ]
    )
    func badEntries(entry: String, message: String) {
        do {
            _ = try AccessToken(entry: entry, position: 2)
            Issue.record("\(entry) was taken")
        } catch {
            #expect(error.message.hasPrefix("access.tokens \(message)"), "\(error.message)")
            #expect(!error.message.contains("abc") && !error.message.contains("bad,token"), "\(error.message)")
        }
    }

    @Test("two tokens of one name, or one token twice, are refused; the unnamed ones of publish.tokens are named in order")
    func distinct() throws {
        let one = AccessToken(name: "ci", token: "a", scopes: .all)
        #expect(throws: ConfigurationError.self) { try AccessToken.checkDistinct([one, AccessToken(name: "ci", token: "b", scopes: .all)]) }
        #expect(throws: ConfigurationError.self) { try AccessToken.checkDistinct([one, AccessToken(name: "other", token: "a", scopes: .all)]) }
        var configuration = ServerConfiguration()
        configuration.publish.tokens = ["x", "y"]
        configuration.dashboard.readTokens = ["z"]
        configuration.accessTokens = [one]
        #expect(configuration.allTokens.map(\.name) == ["ci", "publish-token", "publish-token-2", "dashboard-read-token"])
        #expect(configuration.allTokens.map(\.scopes) == [.all, .all, .all, AccessScopes(read: true)])
        try AccessToken.checkDistinct(configuration.allTokens)
    }
}

/// The one way the audit trail quotes request text, on the server and in `depot audit`.
@Suite("Audit text")
struct AuditTextTests {
    @Test(
        "control characters are written out, the rest kept; the limit cuts, in Unicode scalars",
        arguments: [
            ("plain/path", Int.max, "plain/path"),
            ("a\nb\tc\r", Int.max, "a\\u{a}b\\u{9}c\\u{d}"),
            ("\u{0}\u{7f}\u{85}", Int.max, "\\u{0}\\u{7f}\\u{85}"),
            ("café ✓", Int.max, "café ✓"),
            ("abcdef", 3, "abc"),
            ("e\u{301}\u{301}\u{301}\u{301}x", 2, "e\u{301}"),
        ]
    )
    func escaped(text: String, limit: Int, expected: String) {
        #expect(AuditText.escaped(text, limit: limit) == expected)
    }
}
