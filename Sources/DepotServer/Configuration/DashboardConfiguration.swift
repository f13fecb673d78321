import Configuration

/// The operator's dashboard (`/dashboard/`) and the admin API it reads (`/v1/admin/…`).
///
/// Publish tokens may read it and use its rollback and promote buttons; ``readTokens`` and the
/// ``allowedAddresses`` may only read it.
public struct DashboardConfiguration: Sendable {
    /// Whether the dashboard and its admin API are served (`dashboard.enabled`); off by default.
    public var enabled: Bool
    /// Tokens that may read the dashboard, not change anything (`dashboard.readTokens`).
    public var readTokens: [String]
    /// Client addresses that may read it without a token (`dashboard.allowedAddresses`).
    public var allowedAddresses: Set<String>

    public init(enabled: Bool = false, readTokens: [String] = [], allowedAddresses: Set<String> = ["127.0.0.1", "::1"]) {
        self.enabled = enabled
        self.readTokens = readTokens
        self.allowedAddresses = allowedAddresses
    }
}

extension DashboardConfiguration {
    /// Reads the `dashboard.*` keys from the `dashboard` scope (see ``ServerConfiguration/init(reader:)``).
    init(reader dashboard: ConfigReader) throws {
        let defaults = DashboardConfiguration()
        let readTokens = dashboard.stringArray(forKey: "readTokens", isSecret: true, default: [])
        for token in readTokens { try BearerAuthenticator.validate(token, key: "dashboard.readTokens") }
        self.init(
            enabled: dashboard.bool(forKey: "enabled", default: defaults.enabled),
            readTokens: readTokens,
            allowedAddresses: Set(dashboard.stringArray(forKey: "allowedAddresses", default: Array(defaults.allowedAddresses).sorted()))
        )
    }
}
