/// Delta encoding in HTTP (RFC 3229): whether a request may be answered `226 IM Used` with a
/// VCDIFF delta, and from which of the instances the client holds. Pure: the server looks the
/// delta up and renders it.
///
/// A delta answers a `GET` (or `HEAD`) whose `A-IM` accepts `vcdiff` (§10.5.3) and whose
/// `If-None-Match` lists the entity tags of the instances the client holds (§3, §10.5.3), when:
/// - no listed tag matches the current representation (or another of its variants): that is a
///   304, by RFC 9110, not a delta;
/// - the request has no `If-Match`, `If-Unmodified-Since`, `Range` or `If-Range`, whose meaning
///   combined with a delta this server does not take on (RFC 3229 §10.5.3 leaves it to the
///   server; it then answers as without `A-IM`).
///
/// Only strong tags can be bases: a weak tag names no exact bytes to patch.
public enum DeltaSelection: Hashable, Sendable {
    /// No delta: answer as RFC 9110 says.
    case none
    /// A `226` with a delta from the first of `bases` the server has one from; `gzip`: the `IM`
    /// is `vcdiff, gzip` (the delta sent gzip-compressed), else `vcdiff`.
    case delta(bases: [EntityTag], gzip: Bool)

    /// The selection for a request; `field` gives a request field's lines, `current` the entity
    /// tag of the representation a `200` would send, `variants` the tags of its other variants
    /// (the gzip one). At most `maximumBases` strong tags, the first listed, are bases: each is a
    /// look-up, and a client holds one instance.
    public static func select(
        method: ConditionalRequest.Method,
        current: EntityTag,
        variants: [EntityTag] = [],
        maximumBases: Int = 8,
        field: (FieldName) -> [String]
    ) -> DeltaSelection {
        guard method != .other else { return .none }
        let accepted = AcceptedInstanceManipulations(aIM: field(.aIM))
        guard accepted.vcdiff,
            field(.ifMatch).isEmpty, field(.ifUnmodifiedSince).isEmpty, field(.range).isEmpty, field(.ifRange).isEmpty,
            case .tags(let tags) = EntityTagCondition(fieldLines: field(.ifNoneMatch))
        else { return .none }
        guard !tags.contains(where: { tag in ([current] + variants).contains { tag.matchesWeakly($0) } }) else { return .none }
        let bases = Array(tags.lazy.filter { !$0.isWeak }.prefix(max(0, maximumBases)))
        return bases.isEmpty ? .none : .delta(bases: bases, gzip: accepted.gzip)
    }

    /// The request fields the selection reads.
    public enum FieldName: Hashable, Sendable, CaseIterable {
        case aIM, ifNoneMatch, ifMatch, ifUnmodifiedSince, range, ifRange

        /// The field's name as sent.
        public var name: String {
            switch self {
            case .aIM: "A-IM"
            case .ifNoneMatch: "If-None-Match"
            case .ifMatch: "If-Match"
            case .ifUnmodifiedSince: "If-Unmodified-Since"
            case .range: "Range"
            case .ifRange: "If-Range"
            }
        }
    }

    /// The `IM` field of the 226 (§10.5.2).
    public static func instanceManipulation(gzip: Bool) -> String {
        gzip ? "vcdiff, gzip" : "vcdiff"
    }
}
