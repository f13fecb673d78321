import Crypto
import DepotConnection
import DepotHTTP
import DepotManifest
import DepotStore
import HTTPTypes
import Logging

/// Writes the audit trail (``AuditRecord``, in the catalog): every change made through
/// ``Publisher``, each rollout move of the gate, a root served for the first time, and each
/// request a token's scopes refused. A record is written right after the change's own
/// transaction; one that cannot be written is logged as an error with everything it held, and
/// the change stands.
struct AuditTrail: Sendable {
    let catalog: Catalog
    let logger: Logger
    /// The time records carry (the rollouts' clock, so tests can move it).
    var now: @Sendable () -> HTTPDate = { .now() }

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
            try await catalog.appendAudit(record)
        } catch {
            logger.error("The audit record could not be written", metadata: ["record": "\(record)", "error": "\(error)"])
        }
    }

    /// Records a request refused for its token's scopes.
    func refused(_ refusal: ScopeRefusal, method: HTTPRequest.Method, path: String) async {
        let scope = refusal.action.rawValue + (refusal.channel.map { "=\($0)" } ?? "")
        await record(refusal.actor, "refused", channel: refusal.channel, detail: "\(method.rawValue) \(path.prefix(200)) needs \(scope)")
    }

    /// Records each of `roots` the trail has no record of: a root served for the first time
    /// (at a start, from `channels.rootDirectory`), named by its version and SHA-256.
    func rootsServed(_ roots: [ChannelSigner.Root]) async {
        for root in roots {
            let detail = "root \(root.document.version), sha256 \(Hex.string(SHA256.hash(data: root.bytes)))"
            do {
                guard try await !catalog.hasAudit(action: "root-served", detail: detail) else { continue }
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
