/// The `Cache-Control` value for each path below a route: a default, and overrides by path prefix
/// (the longest matching prefix wins).
public struct CacheControlPolicy: Hashable, Sendable {
    public var defaultValue: String?
    public var overrides: [(prefix: String, value: String)] {
        get { storage }
        set { storage = newValue.sorted { $0.prefix.count > $1.prefix.count } }
    }
    private var storage: [(prefix: String, value: String)] = []

    public init(defaultValue: String?, overrides: [(prefix: String, value: String)] = []) {
        self.defaultValue = defaultValue
        self.overrides = overrides
    }

    /// Parses overrides written `PREFIX=VALUE`, e.g. `assets/=public, max-age=86400`.
    public init(defaultValue: String?, rules: [String]) throws(ConfigurationError) {
        var overrides: [(prefix: String, value: String)] = []
        for rule in rules {
            guard let equals = rule.firstIndex(of: "="), equals != rule.startIndex else {
                throw ConfigurationError("A Cache-Control rule must read PREFIX=VALUE, not \"\(rule)\"")
            }
            overrides.append((String(rule[..<equals]), String(rule[rule.index(after: equals)...])))
        }
        self.init(defaultValue: defaultValue, overrides: overrides)
    }

    /// The value for the path below the route.
    public func value(for relativePath: String) -> String? {
        storage.first { relativePath.hasPrefix($0.prefix) }?.value ?? defaultValue
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.defaultValue == rhs.defaultValue && lhs.storage.elementsEqual(rhs.storage) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(defaultValue)
        for (prefix, value) in storage {
            hasher.combine(prefix)
            hasher.combine(value)
        }
    }
}
