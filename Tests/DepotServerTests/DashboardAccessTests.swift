import Foundation
import Synchronization
import Testing

@testable import DepotServer

@Suite("Dashboard access and traffic")
struct DashboardAccessTests {
    static let access = DashboardAccess(
        tokens: BearerAuthenticator(tokens: [
            AccessToken(name: "publish-token", token: "publish-token", scopes: .all),
            AccessToken(name: "reader", token: "read-token", scopes: AccessScopes(read: true)),
            AccessToken(name: "ci", token: "ci-token", scopes: AccessScopes(publish: .only(["beta"]))),
            AccessToken(name: "manager", token: "manager-token", scopes: AccessScopes(promote: .only(["stable"]), read: true)),
        ]),
        allowedAddresses: ["10.0.0.5"],
        trustedProxies: []
    )

    static func basic(_ password: String) -> String { "Basic " + Data("anyone:\(password)".utf8).base64EncodedString() }

    @Test(
        "who gets which role: a token with read reads, and acts as its scopes allow; an allowed address reads",
        arguments: [
            ("Bearer publish-token", "192.0.2.9", "publish-token admin"),
            (basic("publish-token"), "192.0.2.9", "publish-token admin"),
            ("bearer read-token", nil, "reader reader"),
            (basic("read-token"), "192.0.2.9", "reader reader"),
            (basic("manager-token"), "192.0.2.9", "manager admin"),
            (nil, "10.0.0.5", "address reader"),
            (nil, "192.0.2.9", nil),
            (nil, nil, nil),
            // A token without the read scope does not read the dashboard, even from an allowed address.
            (basic("ci-token"), "10.0.0.5", nil),
            // Wrong credentials never fall back to the address.
            ("Bearer wrong", "10.0.0.5", nil),
            (basic("wrong"), "10.0.0.5", nil),
            ("Basic not-base64!", "10.0.0.5", nil),
            ("Digest publish-token", "10.0.0.5", nil),
        ] as [(String?, String?, String?)]
    )
    func roles(authorization: String?, client: String?, role: String?) {
        let found = Self.access.role(authorization: authorization, client: client)
        #expect(found.map { "\($0.name) \($0.kind)" } == role)
    }

    @Test("the buttons follow the scopes: a manager of stable may promote stable only, and control no rollout")
    func buttons() throws {
        let manager = try #require(Self.access.role(authorization: Self.basic("manager-token"), client: nil))
        #expect(manager.mayPromote("stable") && !manager.mayPromote("beta"))
        #expect(!manager.mayControlRollouts("stable"))
        let all = try #require(Self.access.role(authorization: Self.basic("publish-token"), client: nil))
        #expect(all.mayPromote("beta") && all.mayControlRollouts("beta"))
        #expect(!DashboardRole.byAddress.mayPromote("stable") && !DashboardRole.byAddress.acts)
    }

    @Test(
        "HTML escaping works on Unicode scalars: a quote or bracket with a combining mark is escaped too",
        arguments: [
            ("plain", "plain"),
            ("a\"b<c>&'", "a&quot;b&lt;c&gt;&amp;&#39;"),
            ("\"\u{301}", "&quot;\u{301}"),  // `"` + combining acute: one grapheme cluster
            ("<\u{338}script>", "&lt;\u{338}script&gt;"),  // `<` + combining long solidus
            ("'\u{20DD}x", "&#39;\u{20DD}x"),
            ("café \u{1F600}", "café \u{1F600}"),
        ]
    )
    func escaping(text: String, escaped: String) {
        #expect(DashboardPage.escape(text) == escaped)
        #expect(!DashboardPage.escape(text).unicodeScalars.contains { "\"<>'".unicodeScalars.contains($0) })
    }

    @Test("the pages' templates escape every value by scalar, titles and attributes included")
    func templatesEscape() throws {
        let path = "a\"\u{301} onmouseover=x <\u{338}b>'"
        let page = try DashboardPage().file(DashboardData.File(path: path, versions: []), role: .byAddress)
        #expect(!page.contains("\"\u{301}") && !page.contains("<\u{338}") && !page.contains("'\u{301}"))
        #expect(page.contains("<title>Depot: a&quot;\u{301} onmouseover=x &lt;\u{338}b&gt;&#39;</title>"))
        #expect(page.contains("<h2 id=\"file\">a&quot;\u{301} onmouseover=x &lt;\u{338}b&gt;&#39;</h2>"))
        #expect(page.contains("<p>No version of this path.</p>") && page.contains("data-role=\"reader\""))
    }

    @Test("the traffic ring keeps the last 60 minutes by status class, and forgets older ones")
    func trafficRing() {
        let clock = Mutex<Int64>(1_800_000_000)
        let traffic = TrafficHistory(now: { clock.withLock { $0 } })
        traffic.record(status: 200, contentBytes: 100)
        traffic.record(status: 304, contentBytes: 0)
        traffic.recordSaving(900)
        clock.withLock { $0 += 60 * 59 }
        traffic.record(status: 404, contentBytes: 10)
        traffic.record(status: 503, contentBytes: 0)
        var summary = TrafficHistory.Summary(traffic.lastHour())
        #expect(traffic.lastHour().count == 60)
        #expect(summary.requests == 4 && summary.notModified == 1 && summary.notModifiedShare == 0.25)
        #expect(summary.clientErrors == 1 && summary.serverErrors == 1 && summary.bytesSent == 110 && summary.bytesSaved == 900)
        // An hour after the first answers, their slot is another minute's.
        clock.withLock { $0 += 60 }
        traffic.record(status: 200, contentBytes: 5)
        summary = TrafficHistory.Summary(traffic.lastHour())
        #expect(summary.requests == 3 && summary.notModified == 0 && summary.bytesSaved == 0 && summary.bytesSent == 15)
    }
}
