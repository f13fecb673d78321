/// What a token may do: publish to some channels, promote and roll back some, control the
/// rollouts of some, read the admin API and the dashboard. One rule decides every request:
/// ``allows(_:channel:)``, tested as a table.
public struct AccessScopes: Sendable, Hashable {
    /// The channels an action is allowed on.
    public enum Channels: Sendable, Hashable {
        case none
        case all
        case only(Set<String>)

        func contains(_ channel: String?) -> Bool {
            switch self {
            case .none: false
            case .all: true
            // `nil`: some channel; the request names it later (in its body).
            case .only(let names): channel.map(names.contains) ?? !names.isEmpty
            }
        }
    }

    /// Channels the token may publish to (upload, commit, delete files).
    public var publish: Channels
    /// Channels the token may promote and roll back.
    public var promote: Channels
    /// Channels whose rollouts the token may start, pause, resume, halt and roll back.
    public var rollouts: Channels
    /// Whether it may read the admin API (releases, channels, rollouts, audit) and the dashboard.
    public var read: Bool

    public init(publish: Channels = .none, promote: Channels = .none, rollouts: Channels = .none, read: Bool = false) {
        self.publish = publish
        self.promote = promote
        self.rollouts = rollouts
        self.read = read
    }

    /// Every action on every channel: an unnamed token of `publish.tokens`, as before scopes.
    public static let all = AccessScopes(publish: .all, promote: .all, rollouts: .all, read: true)

    /// Whether these scopes allow `action` on `channel`; a `nil` channel asks whether the action
    /// is allowed on some channel (the route's check, before the request names one).
    public func allows(_ action: AccessAction, channel: String?) -> Bool {
        switch action {
        case .publish: publish.contains(channel)
        case .promote: promote.contains(channel)
        case .rollouts: rollouts.contains(channel)
        case .read: read
        }
    }
}

/// What a request asks to do, as scopes name it.
public enum AccessAction: String, Sendable, CaseIterable {
    /// Upload content, commit a release, delete files.
    case publish
    /// Promote a channel to a release, roll it back.
    case promote
    /// Start and control a staged rollout.
    case rollouts
    /// Read the admin API and the dashboard.
    case read
}
