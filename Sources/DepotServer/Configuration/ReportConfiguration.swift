import Configuration
import DepotStore

/// What `POST /v1/reports` takes (docs/releases.md, "Rollouts"): its limits, and how often what
/// it took is counted into the catalog.
public struct ReportConfiguration: Sendable {
    /// The largest body, in bytes (`reports.maxBodyBytes`).
    public var maxBodyBytes: Int
    /// The most reports one request carries (`reports.maxPerRequest`).
    public var maxPerRequest: Int
    /// Requests a second one client address may make (`reports.perAddressPerSecond`); more get
    /// 429. Behind a proxy, the address is the forwarded client's only from `http.trustedProxies`.
    public var perAddressPerSecond: Int
    /// Reports taken and not yet counted, at most (`reports.maxPending`); beyond, 503 with
    /// `Retry-After`: memory stays bounded whatever the load.
    public var maxPending: Int
    /// How often taken reports are counted into the catalog, in one transaction
    /// (`reports.flushSeconds`).
    public var flushInterval: Duration
    /// Installs one network (an IPv4 /24, an IPv6 /56) counts toward a rollout's step, at most
    /// (`reports.installsPerNetwork`): more from it are neither kept nor counted.
    public var installsPerNetwork: Int
    /// Installs a rollout's step keeps, at most (`reports.installsPerStep`): with the limit
    /// above, what reports can store is bounded whatever the load.
    public var installsPerStep: Int
    /// Networks a gate needs (`reports.gateNetworks`): a halt needs failures from this many, an
    /// advance reports from this many. With 2 or more, one network cannot move a rollout.
    public var gateNetworks: Int

    public init(
        maxBodyBytes: Int = 64 * 1024,
        maxPerRequest: Int = 100,
        perAddressPerSecond: Int = 20,
        maxPending: Int = 100_000,
        flushInterval: Duration = .seconds(1),
        installsPerNetwork: Int = 5,
        installsPerStep: Int = 100_000,
        gateNetworks: Int = 3
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.maxPerRequest = maxPerRequest
        self.perAddressPerSecond = perAddressPerSecond
        self.maxPending = maxPending
        self.flushInterval = flushInterval
        self.installsPerNetwork = installsPerNetwork
        self.installsPerStep = installsPerStep
        self.gateNetworks = gateNetworks
    }

    /// What the catalog keeps of reports.
    var limits: ReportLedger.ReportLimits { .init(installsPerNetwork: installsPerNetwork, installsPerPeriod: installsPerStep) }
}

extension ReportConfiguration {
    /// Reads the `reports.*` keys from the `reports` scope (see ``ServerConfiguration/init(reader:)``).
    init(reader reports: ConfigReader) throws {
        let defaults = Self()
        self.init(
            maxBodyBytes: reports.int(forKey: "maxBodyBytes", default: defaults.maxBodyBytes),
            maxPerRequest: reports.int(forKey: "maxPerRequest", default: defaults.maxPerRequest),
            perAddressPerSecond: reports.int(forKey: "perAddressPerSecond", default: defaults.perAddressPerSecond),
            maxPending: reports.int(forKey: "maxPending", default: defaults.maxPending),
            flushInterval: reports.seconds(forKey: "flushSeconds", default: defaults.flushInterval),
            installsPerNetwork: reports.int(forKey: "installsPerNetwork", default: defaults.installsPerNetwork),
            installsPerStep: reports.int(forKey: "installsPerStep", default: defaults.installsPerStep),
            gateNetworks: reports.int(forKey: "gateNetworks", default: defaults.gateNetworks)
        )
        guard maxBodyBytes >= 256, maxPerRequest >= 1, perAddressPerSecond >= 1, maxPending >= maxPerRequest, flushInterval > .zero else {
            throw ConfigurationError(
                "reports.maxBodyBytes must be at least 256, reports.maxPerRequest and reports.perAddressPerSecond at least 1, "
                    + "reports.maxPending at least reports.maxPerRequest, reports.flushSeconds positive"
            )
        }
        guard installsPerNetwork >= 1, installsPerStep >= installsPerNetwork, gateNetworks >= 1 else {
            throw ConfigurationError(
                "reports.installsPerNetwork and reports.gateNetworks must be at least 1, reports.installsPerStep at least reports.installsPerNetwork"
            )
        }
    }
}
