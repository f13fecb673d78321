import DepotHTTP
import Foundation

/// The network a report comes from, as a gate counts it: an IPv4 address's /24, an IPv6
/// address's /56 (a home or small office gets one of either), as their leading bytes. Whoever
/// controls one network can invent any number of installs, so a gate weighs networks, not
/// installs alone (``ReportConfiguration/installsPerNetwork``, ``ReportConfiguration/gateNetworks``).
enum ReportNetwork {
    /// The network of `address` (as ``Request/clientAddress(context:trustedProxies:)`` gives
    /// it: dotted IPv4, or IPv6 in any RFC 4291 form, an IPv4-mapped one counted as IPv4, with
    /// or without a port); `[0]`, one network for all of them, for text that is no address: a
    /// network is parsed from an address, never taken from whatever a proxy forwarded.
    static func of(_ address: String) -> [UInt8] {
        switch bytes(of: address) {
        case let v4? where v4.count == 4: [4] + v4.prefix(3)
        case let v6?: [6] + v6.prefix(7)
        case nil: [0]
        }
    }

    /// What report requests are rate-limited by (``ReportConfiguration/perAddressPerSecond``):
    /// a whole IPv4 address, or an IPv6 address's /64, the least one host is given, so that a
    /// host cannot multiply its share by the addresses of its subnet; one key for text that is
    /// no address.
    static func rateKey(of address: String) -> String {
        switch bytes(of: address) {
        case let v4? where v4.count == 4: "4:" + Hex.string(v4)
        case let v6?: "6:" + Hex.string(v6.prefix(8))
        case nil: "0"
        }
    }

    /// `address` as 4 bytes (IPv4, or an IPv4-mapped IPv6 address) or 16 (IPv6). A port a proxy
    /// forwarded with it (`203.0.113.7:5123`, `[2001:db8::1]:5123`) is dropped: each source port
    /// of one host is not a host of its own.
    static func bytes(of address: String) -> [UInt8]? {
        var text = Substring(address)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let after = text[text.index(after: close)...]
            guard after.isEmpty || isPort(after) else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if let colon = text.lastIndex(of: ":"), text[..<colon].contains("."), !text[..<colon].contains(":"), isPort(text[colon...]) {
            text = text[..<colon]
        }
        if let v4 = ipv4(text) { return v4 }
        guard let v6 = ipv6(String(text)) else { return nil }
        if v6.prefix(10).allSatisfy({ $0 == 0 }), v6[10] == 0xFF, v6[11] == 0xFF { return Array(v6[12..<16]) }
        return v6
    }

    /// `:` and 1 to 5 digits.
    private static func isPort(_ text: Substring) -> Bool {
        text.first == ":" && (2...6).contains(text.count) && text.dropFirst().allSatisfy(\.isASCII) && text.dropFirst().allSatisfy(\.isNumber)
    }

    private static func ipv4(_ text: some StringProtocol) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { part in part.count <= 3 && !part.isEmpty ? UInt8(part) : nil }
        return bytes.count == 4 ? bytes : nil
    }

    private static func ipv6(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ half: String) -> [UInt8]? {
            guard !half.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (index, part) in parts.enumerated() {
                if index == parts.count - 1, part.contains("."), let v4 = ipv4(part) {
                    bytes += v4
                } else {
                    guard (1...4).contains(part.count), let value = UInt16(part, radix: 16) else { return nil }
                    bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
                }
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count < 16 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}
