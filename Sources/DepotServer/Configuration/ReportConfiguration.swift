import Configuration

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

    public init(
        maxBodyBytes: Int = 64 * 1024,
        maxPerRequest: Int = 100,
        perAddressPerSecond: Int = 20,
        maxPending: Int = 100_000,
        flushInterval: Duration = .seconds(1)
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.maxPerRequest = maxPerRequest
        self.perAddressPerSecond = perAddressPerSecond
        self.maxPending = maxPending
        self.flushInterval = flushInterval
    }
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
            flushInterval: reports.seconds(forKey: "flushSeconds", default: defaults.flushInterval)
        )
        guard maxBodyBytes >= 256, maxPerRequest >= 1, perAddressPerSecond >= 1, maxPending >= maxPerRequest, flushInterval > .zero else {
            throw ConfigurationError(
                "reports.maxBodyBytes must be at least 256, reports.maxPerRequest and reports.perAddressPerSecond at least 1, "
                    + "reports.maxPending at least reports.maxPerRequest, reports.flushSeconds positive"
            )
        }
    }
}
