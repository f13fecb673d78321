import DepotAPI
import Hummingbird

/// Who acts, as the audit trail records it: a token's name (never the token), or the server's
/// own rollout gate, and the client's address.
public struct Actor: Sendable, Hashable {
    public let name: String
    public let client: String?

    /// The scheduler that advances, halts and rolls back rollouts on its own.
    static let rolloutGate = Actor(name: "rollout-gate", client: nil)
    /// The server itself (a root served for the first time).
    static let server = Actor(name: "server", client: nil)
}

/// A request's authenticated token and where it came from: what every `/v1` handler of the
/// publisher's API gets (``ScopedRoutes``), and the only way a request gets a ``Permit`` (the
/// rollout gate has its own, ``Permit/rolloutGate(channel:)``).
struct AccessGrant: Sendable {
    let token: AccessToken
    let actor: Actor

    init(token: AccessToken, client: String?) {
        self.token = token
        self.actor = Actor(name: token.name, client: client)
    }

    /// Throws ``ScopeRefusal`` unless the token may do `action` on `channel` (`nil`: on some
    /// channel).
    func check(_ action: AccessAction, channel: String?) throws(ScopeRefusal) {
        guard token.scopes.allows(action, channel: channel) else { throw ScopeRefusal(actor: actor, action: action, channel: channel) }
    }

    /// The permit to do `action` on `channel`, which every change of ``Publisher`` takes: a
    /// handler cannot change a channel without asking this first.
    func permit(_ action: AccessAction, channel: String) throws(ScopeRefusal) -> Permit {
        try check(action, channel: channel)
        return Permit(actor: actor, action: action, channel: channel)
    }
}

/// Proof that ``actor`` may do ``action`` on ``channel``: made only by
/// ``AccessGrant/permit(_:channel:)``, or for the server's own moves (the rollout gate).
struct Permit: Sendable {
    let actor: Actor
    let action: AccessAction
    let channel: String

    fileprivate init(actor: Actor, action: AccessAction, channel: String) {
        self.actor = actor
        self.action = action
        self.channel = channel
    }

    /// The rollout gate's own permit to move `channel`'s rollout.
    static func rolloutGate(channel: String) -> Permit {
        Permit(actor: .rolloutGate, action: .rollouts, channel: channel)
    }
}

/// A token asked for what its scopes do not allow: 403 with a one-line reason, and a record
/// in the audit trail.
struct ScopeRefusal: Error, Sendable {
    let actor: Actor
    let action: AccessAction
    let channel: String?

    /// The reason, naming the channel as the request gave it, cut and escaped as the audit
    /// trail quotes it (``DepotAPI/AuditText``).
    var message: String {
        let channel = channel.map { RequestedName.quoted($0) }
        let what: String =
            switch action {
            case .publish: channel.map { "publish to \($0)" } ?? "publish"
            case .promote: channel.map { "promote or roll back \($0)" } ?? "promote or roll back"
            case .rollouts: channel.map { "control the rollouts of \($0)" } ?? "control rollouts"
            case .read: "read the admin API"
            }
        return "The token \(actor.name) may not \(what): see its scopes in access.tokens"
    }

    var httpError: HTTPError { HTTPError(.forbidden, message: message) }
}
