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
        // A port a proxy forwarded is dropped (issue 57, defect 10).
        ("203.0.113.7:5123", [4, 203, 0, 113]),
        ("[2001:db8:1:2::9]:443", [6, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00]),
        ("[::ffff:203.0.113.9]:1", [4, 203, 0, 113]),
        // Text that is no address is one network, whatever it says.
        ("unknown", [0]),
        ("1.2.3", [0]),
        ("1.2.3.256", [0]),
        ("1::2::3", [0]),
        ("203.0.113.7:99999x", [0]),
        ("[2001:db8::1", [0]),
    ]

    @Test("each address's network", arguments: cases.indices)
    func network(index: Int) {
        let (address, network) = Self.cases[index]
        #expect(ReportNetwork.of(address) == network, "\(address)")
    }

    @Test("30 source ports of one host behind a proxy are one network, and one rate key")
    func ports() {
        let networks = Set((1000..<1030).map { ReportNetwork.of("198.51.100.7:\($0)") })
        #expect(networks == [[4, 198, 51, 100]])
        let keys = Set((1000..<1030).map { ReportNetwork.rateKey(of: "198.51.100.7:\($0)") })
        #expect(keys.count == 1)
    }

    @Test("rate keys: a whole IPv4 address, an IPv6 /64 (60 addresses of one /64 are one key), one key for what is no address")
    func rateKeys() {
        #expect(ReportNetwork.rateKey(of: "198.51.100.7") != ReportNetwork.rateKey(of: "198.51.100.8"))
        let subnet = Set((1...60).map { ReportNetwork.rateKey(of: "2001:db8:0:1::\(String($0, radix: 16))") })
        #expect(subnet.count == 1)
        #expect(ReportNetwork.rateKey(of: "2001:db8:0:1::1") != ReportNetwork.rateKey(of: "2001:db8:0:2::1"))
        #expect(ReportNetwork.rateKey(of: "junk") == ReportNetwork.rateKey(of: "other junk"))
    }

    @Test("addresses of one /24, or one /56, share a network; neighbours do not")
    func neighbours() {
        #expect(ReportNetwork.of("198.51.100.1") == ReportNetwork.of("198.51.100.254"))
        #expect(ReportNetwork.of("198.51.100.1") != ReportNetwork.of("198.51.101.1"))
        #expect(ReportNetwork.of("2001:db8:0:100::1") == ReportNetwork.of("2001:db8:0:1ff:abcd::1"))
        #expect(ReportNetwork.of("2001:db8:0:100::1") != ReportNetwork.of("2001:db8:0:200::1"))
    }
}
