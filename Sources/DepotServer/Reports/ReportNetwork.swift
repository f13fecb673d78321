import Foundation

/// The network a report comes from, as a gate counts it: an IPv4 address's /24, an IPv6
/// address's /56 (a home or small office gets one of either), as their leading bytes. Whoever
/// controls one network can invent any number of installs, so a gate weighs networks, not
/// installs alone (``ReportConfiguration/installsPerNetwork``, ``ReportConfiguration/gateNetworks``).
enum ReportNetwork {
    /// The network of `address` (as ``Request/clientAddress(context:trustedProxies:)`` gives
    /// it: dotted IPv4, or IPv6 in any RFC 4291 form, an IPv4-mapped one counted as IPv4); the
    /// whole text, as bytes, for what is neither.
    static func of(_ address: String) -> [UInt8] {
        if let v4 = ipv4(address) { return [4] + v4.prefix(3) }
        if let v6 = ipv6(address) {
            if v6.prefix(10).allSatisfy({ $0 == 0 }), v6[10] == 0xFF, v6[11] == 0xFF { return [4] + v6[12..<15] }
            return [6] + v6.prefix(7)
        }
        return [0] + Array(address.utf8.prefix(64))
    }

    private static func ipv4(_ text: some StringProtocol) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { part in part.count <= 3 && !part.isEmpty ? UInt8(part) : nil }
        return bytes.count == 4 ? bytes : nil
    }

    private static func ipv6(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
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
