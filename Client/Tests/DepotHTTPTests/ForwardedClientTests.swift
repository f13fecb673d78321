import Testing

@testable import DepotHTTP

/// X-Forwarded-For and -Proto are believed only from configured proxies.
@Suite("Forwarded client")
struct ForwardedClientTests {
    static let trusted: Set<String> = ["127.0.0.1", "10.0.0.2"]

    @Test(
        "client address",
        arguments: [
            ("127.0.0.1", [String](), "127.0.0.1"),
            ("127.0.0.1", ["203.0.113.9"], "203.0.113.9"),
            ("198.51.100.7", ["203.0.113.9"], "198.51.100.7"),  // untrusted peer: its header is ignored
            ("127.0.0.1", ["1.1.1.1, 203.0.113.9"], "203.0.113.9"),  // a spoofed first hop is not believed
            ("127.0.0.1", ["203.0.113.9, 10.0.0.2"], "203.0.113.9"),  // two trusted proxies
            ("127.0.0.1", ["203.0.113.9", "10.0.0.2"], "203.0.113.9"),  // two field lines
            ("127.0.0.1", ["10.0.0.2"], "10.0.0.2"),  // only proxies: the last one
            ("127.0.0.1", ["2001:db8::7"], "2001:db8::7"),  // IPv6, as nginx writes it
            ("127.0.0.1", ["[2001:db8::7]:443"], "[2001:db8::7]:443"),  // in brackets, with a port
            ("127.0.0.1", ["<script>"], "127.0.0.1"),  // not an address: the proxy that passed it on
            ("127.0.0.1", ["203.0.113.9, 10.0.0.2 x"], "127.0.0.1"),  // a hop with a space
            ("127.0.0.1", [String(repeating: "1", count: 54)], "127.0.0.1"),  // longer than any address
            ("127.0.0.1", [String(repeating: "1", count: 53)], String(repeating: "1", count: 53)),  // the longest believed
        ]
    )
    func address(peer: String, header: [String], expected: String) {
        #expect(ForwardedClient.address(peer: peer, forwardedFor: header, trustedProxies: Self.trusted) == expected)
    }

    @Test(
        "the address an allow-list judges: none behind a proxy Depot does not trust",
        arguments: [
            // (peer, X-Forwarded-For, Forwarded or X-Real-IP, trusted proxies, address)
            ("127.0.0.1", [String](), [String](), Set<String>(), "127.0.0.1"),  // a local client, straight
            ("127.0.0.1", ["203.0.113.9"], [], [], nil),  // the shipped nginx site, default configuration
            ("127.0.0.1", [], ["for=203.0.113.9"], [], nil),  // a proxy that writes Forwarded
            ("127.0.0.1", [], ["203.0.113.9"], [], nil),  // a proxy that writes X-Real-IP
            ("127.0.0.1", ["127.0.0.1"], [], [], nil),  // a local client through an untrusted proxy: unknown
            ("127.0.0.1", ["203.0.113.9"], [], ["127.0.0.1"], "203.0.113.9"),  // behind a trusted proxy
            ("127.0.0.1", ["127.0.0.1"], [], ["127.0.0.1"], "127.0.0.1"),  // a local client through it
            ("198.51.100.7", [], [], ["127.0.0.1"], "198.51.100.7"),  // a remote client, straight
            ("198.51.100.7", ["127.0.0.1"], [], ["127.0.0.1"], nil),  // a remote peer claiming to forward a local one
            ("127.0.0.1", ["<script>"], [], ["127.0.0.1"], nil),  // a trusted proxy passing on a client's text: unknown
            ("127.0.0.1", ["203.0.113.9, junk!"], [], ["127.0.0.1"], nil),  // the same, after an address
        ] as [(String, [String], [String], Set<String>, String?)]
    )
    func allowListAddress(peer: String, forwardedFor: [String], forwarded: [String], trusted: Set<String>, expected: String?) {
        #expect(ForwardedClient.allowListAddress(peer: peer, forwardedFor: forwardedFor, forwarded: forwarded, trustedProxies: trusted) == expected)
    }

    @Test("scheme")
    func scheme() {
        #expect(ForwardedClient.scheme(peer: "127.0.0.1", forwardedProto: "https", trustedProxies: Self.trusted) == "https")
        #expect(ForwardedClient.scheme(peer: "198.51.100.7", forwardedProto: "https", trustedProxies: Self.trusted) == "http")
        #expect(ForwardedClient.scheme(peer: "127.0.0.1", forwardedProto: "gopher", trustedProxies: Self.trusted) == "http")
    }
}
