/// Where a fleet's installs sit on the internet: about 60 % in IPv4 /24s of 1 to 30 installs
/// (homes, offices), 25 % in IPv6 /56s of 1 to 4 (one customer's prefix), 15 % behind 40 large
/// NATs (a carrier's one address). Each install's requests carry its address in
/// `X-Forwarded-For`, so the server's rules per address and per network (reports.*) meet a fleet
/// as they would.
struct NetworkMix {
    /// A network: its kind in the top two bits, its number below.
    enum Kind: UInt32 {
        case ipv4 = 0
        case ipv6 = 1
        case nat = 2
    }

    static let natCount: UInt32 = 40

    /// The network of each of `count` installs, shuffled so that a network's installs do not
    /// poll together.
    static func draw(count: Int, using random: inout SplitMix64) -> [UInt32] {
        var networks: [UInt32] = []
        networks.reserveCapacity(count)
        var ipv4: UInt32 = 0
        var ipv6: UInt32 = 0
        while networks.count < count {
            let draw = random.unit()
            if draw < 0.60 {
                let size = 1 + Int(random.next() % 30)
                networks.append(contentsOf: repeatElement(Kind.ipv4.rawValue << 30 | ipv4, count: size))
                ipv4 += 1
            } else if draw < 0.85 {
                let size = 1 + Int(random.next() % 4)
                networks.append(contentsOf: repeatElement(Kind.ipv6.rawValue << 30 | ipv6, count: size))
                ipv6 += 1
            } else {
                // A NAT's share arrives a few installs at a time, spread over its 40 addresses.
                let nat = UInt32(random.next() % UInt64(natCount))
                networks.append(contentsOf: repeatElement(Kind.nat.rawValue << 30 | nat, count: 4))
            }
        }
        networks.removeLast(networks.count - count)
        for index in stride(from: count - 1, to: 0, by: -1) {
            networks.swapAt(index, Int(random.next() % UInt64(index + 1)))
        }
        return networks
    }

    /// The address install `install` of `network` sends from.
    static func address(network: UInt32, install: Int) -> String {
        let number = network & 0x3fff_ffff
        let host = 1 + install % 250
        switch Kind(rawValue: network >> 30) {
        case .ipv4:
            // 11.0.0.0 and up: a /24 a network.
            return "\(11 + number >> 16).\(number >> 8 & 255).\(number & 255).\(host)"
        case .ipv6:
            // 2001:db8:XXXX:YY00::/56 a network, a /64 an install within it.
            return "2001:db8:\(String(number >> 8 & 0xffff, radix: 16)):\(String((number & 255) << 8 | UInt32(host & 255), radix: 16))::1"
        default:
            return "198.18.\(number).1"
        }
    }

    /// The networks of `networks` by kind, for the run's log.
    static func summary(_ networks: [UInt32]) -> [String: Int] {
        var distinct: [Kind: Set<UInt32>] = [:]
        for network in networks { distinct[Kind(rawValue: network >> 30)!, default: []].insert(network) }
        return ["ipv4/24": distinct[.ipv4]?.count ?? 0, "ipv6/56": distinct[.ipv6]?.count ?? 0, "nat": distinct[.nat]?.count ?? 0]
    }
}

/// A small, fast, seeded generator (Vigna's SplitMix64): the fleet is the same for the same
/// seed. Written by hand: the standard library's generator cannot be seeded.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
