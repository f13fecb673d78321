import Crypto
import DepotAPI
import DepotConnection
import DepotHTTP
import DepotManifest
import DepotStore
import HTTPTypes
import Logging
import Synchronization

/// Writes the audit trail (``AuditRecord``, in the catalog): every change made through
/// ``Publisher``, each rollout move of the gate, a root served for the first time, and each
/// request a token's scopes refused. A record is written right after the change's own
/// transaction; one that cannot be written is logged as an error with everything it held, and
/// the change stands.
struct AuditTrail: Sendable {
    let log: AuditLog
    let logger: Logger
    /// The time records carry (the rollouts' clock, so tests can move it).
    var now: @Sendable () -> HTTPDate = { .now() }
    /// Refusals recorded a minute for each token (the requests that name none, refused by
    /// address, share the budget of `address`): beyond it the first is logged and the rest go
    /// unrecorded until the next minute, so that no one fills the disk, or the log, by being
    /// refused.
    let refusals = RefusalBudget(perMinute: 60)

    /// Records that `actor` did `action`.
    func record(_ actor: Actor, _ action: String, channel: String?, release: Int64? = nil, serial: Int64? = nil, detail: String? = nil) async {
        let record = AuditRecord(
            at: now().secondsSince1970,
            token: actor.name,
            client: actor.client,
            action: action,
            channel: channel,
            release: release,
            serial: serial,
            detail: detail.map { String($0.prefix(Self.maximumDetail)) }
        )
        do {
            try await log.appendAudit(record)
        } catch {
            logger.error("The audit record could not be written", metadata: ["record": "\(record)", "error": "\(error)"])
        }
    }

    /// Records a request refused for its token's scopes. A channel that is no channel name (it
    /// came from the request) is not recorded as one, and the request's path is cut and
    /// escaped: a refusal stores at most a few hundred bytes, and no line a reader could take
    /// for another record.
    func refused(_ refusal: ScopeRefusal, method: HTTPRequest.Method, path: String) async {
        let channel = refusal.channel.flatMap { ChannelName.problem($0) == nil ? $0 : nil }
        let scope = refusal.action.rawValue + (channel.map { "=\($0)" } ?? (refusal.channel == nil ? "" : " (on no valid channel)"))
        await refused(refusal.actor, needing: scope, channel: channel, method: method, path: path)
    }

    /// Records a request refused to `actor` (a token, or a client address) for want of `scope`
    /// (``ScopedRoutes``): `scope` is the server's own text, `path` the request's, cut and
    /// escaped; within the actor's budget of refusals a minute.
    func refused(_ actor: Actor, needing scope: String, channel: String? = nil, method: HTTPRequest.Method, path: String) async {
        let minute = now().secondsSince1970 / 60
        switch refusals.take(actor.name, minute: minute) {
        case .record: break
        case .firstOverBudget:
            logger.warning(
                "Refusals of this token are over the budget of this minute: the rest of the minute's are not recorded",
                metadata: ["token": "\(actor.name)"]
            )
            return
        case .overBudget: return
        }
        await record(actor, "refused", channel: channel, detail: "\(method.rawValue) \(AuditText.escaped(path, limit: 200)) needs \(scope)")
    }

    /// Records each of `roots` the trail has no record of: a root served for the first time
    /// (at a start, from `channels.rootDirectory`), named by its version and SHA-256.
    func rootsServed(_ roots: [ChannelSigner.Root]) async {
        for root in roots {
            let detail = "root \(root.document.version), sha256 \(Hex.string(SHA256.hash(data: root.bytes)))"
            do {
                guard try await !log.hasAudit(action: "root-served", detail: detail) else { continue }
            } catch {
                logger.error("The audit trail could not be read", metadata: ["error": "\(error)"])
                continue
            }
            await record(.server, "root-served", channel: nil, detail: detail)
        }
    }

    /// The longest note kept: a publisher's message, a reason.
    static let maximumDetail = 1000
}

/// How many refusals each token may still have recorded in the current minute.
final class RefusalBudget: Sendable {
    /// What becomes of one refusal.
    enum Decision: Equatable {
        /// Recorded.
        case record
        /// The first of the minute over the budget: not recorded, but logged.
        case firstOverBudget
        /// Neither recorded nor logged.
        case overBudget
    }

    private let perMinute: Int
    private let state = Mutex<(minute: Int64, used: [String: Int])>((0, [:]))

    init(perMinute: Int) {
        self.perMinute = perMinute
    }

    /// What becomes of a refusal of `token` in `minute` (counted).
    func take(_ token: String, minute: Int64) -> Decision {
        state.withLock { state in
            if state.minute != minute { state = (minute, [:]) }
            let used = state.used[token, default: 0]
            state.used[token] = min(used, perMinute) + 1
            return used < perMinute ? .record : used == perMinute ? .firstOverBudget : .overBudget
        }
    }
}
