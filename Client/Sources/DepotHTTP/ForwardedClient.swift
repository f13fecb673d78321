/// The client of a request that may have come through reverse proxies.
public enum ForwardedClient {
    /// The address to treat as the client's.
    ///
    /// `X-Forwarded-For` is believed only as far as it was written by trusted proxies: starting
    /// from the peer that connected, while that address is a trusted proxy, step to the address
    /// it says it received the request from (the list is read right to left, as each proxy
    /// appends). The first untrusted address is the client. An untrusted peer's header is
    /// ignored, since anyone can send one. A hop not written as an address (``isAddress(_:)``: a
    /// trusted proxy that passed on what its client wrote) ends the walk at the proxy that passed
    /// it on, so that no request chooses the text an audit record or a report keeps as its
    /// address; ``allowListAddress(peer:forwardedFor:forwarded:trustedProxies:)`` judges no
    /// address then.
    ///
    /// - Parameters:
    ///   - peer: The address of the connection.
    ///   - forwardedFor: The `X-Forwarded-For` field lines, in order.
    ///   - trustedProxies: Addresses of proxies whose fields are believed.
    public static func address(peer: String, forwardedFor: [String], trustedProxies: Set<String>) -> String {
        walk(peer: peer, forwardedFor: forwardedFor, trustedProxies: trustedProxies).client
    }

    /// The walk of ``address(peer:forwardedFor:trustedProxies:)``, and whether it ended at a hop
    /// not written as an address.
    private static func walk(peer: String, forwardedFor: [String], trustedProxies: Set<String>) -> (client: String, garbled: Bool) {
        guard trustedProxies.contains(peer) else { return (peer, false) }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { String($0.trimmingOWS()) }.filter { !$0.isEmpty }
        var client = peer
        for hop in hops.reversed() {
            guard trustedProxies.contains(client) else { break }
            guard isAddress(hop) else { return (client, true) }
            client = hop
        }
        return (client, false)
    }

    /// The longest hop believed: an IPv6 address with an IPv4 tail in brackets and a port.
    public static let maxAddressLength = 53

    /// Whether `hop` is written as an IPv4 or IPv6 address may be, optionally in brackets and
    /// with a port: hexadecimal digits, `.`, `:`, `[` and `]`, at most ``maxAddressLength``. A
    /// loose test of the characters only (`cafe` passes it; a zone ID or nginx's `unix:` does not):
    /// it keeps out text a client chose, not every string that is no address.
    static func isAddress(_ hop: String) -> Bool {
        hop.utf8.count <= maxAddressLength
            && hop.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit || $0 == "." || $0 == ":" || $0 == "[" || $0 == "]" }
    }

    /// The address an allow-list may judge (who reads `/metrics` or the dashboard without a
    /// token): the client of ``address(peer:forwardedFor:trustedProxies:)`` when the request
    /// came straight from it or through trusted proxies only, else `nil`.
    ///
    /// A request from an untrusted peer that carries forwarding fields came through a proxy Depot
    /// was not told to trust, such as nginx on the same machine with the default
    /// configuration: its peer is the proxy's address (often 127.0.0.1), not the client's, and
    /// the client is unknown. Behind trusted proxies, the first untrusted hop is the client.
    ///
    /// - Parameter forwarded: The other forwarding fields' lines (`Forwarded`, `X-Real-IP`).
    public static func allowListAddress(peer: String, forwardedFor: [String], forwarded: [String], trustedProxies: Set<String>) -> String? {
        guard trustedProxies.contains(peer) || (forwardedFor.isEmpty && forwarded.isEmpty) else { return nil }
        let walked = walk(peer: peer, forwardedFor: forwardedFor, trustedProxies: trustedProxies)
        return walked.garbled ? nil : walked.client
    }

    /// The scheme the client used: `X-Forwarded-Proto` from a trusted peer, else `http`.
    public static func scheme(peer: String, forwardedProto: String?, trustedProxies: Set<String>) -> String {
        guard trustedProxies.contains(peer), let proto = forwardedProto?.trimmingOWS().lowercased(), ["http", "https"].contains(proto) else {
            return "http"
        }
        return proto
    }
}
