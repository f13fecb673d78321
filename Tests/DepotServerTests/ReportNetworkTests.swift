import Testing

@testable import DepotServer

/// The network a report is counted under: an IPv4 /24, an IPv6 /56, whatever the form of the
/// address.
@Suite("Report networks")
struct ReportNetworkTests {
    static let cases: [(String, [UInt8])] = [
        ("203.0.113.7", [4, 203, 0, 113]),
        ("203.0.113.250", [4, 203, 0, 113]),
        ("::ffff:203.0.113.9", [4, 203, 0, 113]),
        ("2001:db8:1:2::9", [6, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00]),
        ("2001:db8:1:2ff:ffff::1", [6, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x02]),
        ("[2001:0db8:0001:0200::]", [6, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x02]),
        ("fe80::1%eth0", [6, 0xfe, 0x80, 0, 0, 0, 0, 0]),
        ("::1", [6, 0, 0, 0, 0, 0, 0, 0]),
        ("unknown", [0] + Array("unknown".utf8)),
        ("1.2.3", [0] + Array("1.2.3".utf8)),
        ("1.2.3.256", [0] + Array("1.2.3.256".utf8)),
        ("1::2::3", [0] + Array("1::2::3".utf8)),
    ]

    @Test("each address's network", arguments: cases.indices)
    func network(index: Int) {
        let (address, network) = Self.cases[index]
        #expect(ReportNetwork.of(address) == network, "\(address)")
    }

    @Test("addresses of one /24, or one /56, share a network; neighbours do not")
    func neighbours() {
        #expect(ReportNetwork.of("198.51.100.1") == ReportNetwork.of("198.51.100.254"))
        #expect(ReportNetwork.of("198.51.100.1") != ReportNetwork.of("198.51.101.1"))
        #expect(ReportNetwork.of("2001:db8:0:100::1") == ReportNetwork.of("2001:db8:0:1ff:abcd::1"))
        #expect(ReportNetwork.of("2001:db8:0:100::1") != ReportNetwork.of("2001:db8:0:200::1"))
    }
}
