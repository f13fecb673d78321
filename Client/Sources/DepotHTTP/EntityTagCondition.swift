/// The value of an `If-Match` or `If-None-Match` field (RFC 9110 §13.1.1, §13.1.2):
/// `"*"` or a list of entity tags, possibly spread over several field lines.
public enum EntityTagCondition: Hashable, Sendable {
    /// `*`: any current representation.
    case any
    /// A list of entity tags.
    case tags([EntityTag])

    /// Parses the field lines of one header field, in order.
    ///
    /// Empty list elements are skipped (RFC 9110 §5.6.1.2). A member that is not a valid entity tag
    /// ends the list: the tags before it are kept and nothing after it can match, as Go's
    /// `net/http` does. A `*` member makes the whole condition `any`. Returns `nil` when there are
    /// no field lines, so that an absent field stays distinguishable from an empty one.
    public init?(fieldLines: [String]) {
        guard !fieldLines.isEmpty else { return nil }
        var tags: [EntityTag] = []
        for line in fieldLines {
            var scanner = FieldScanner(line)
            while true {
                scanner.skipListSeparators()
                if scanner.isAtEnd { break }
                if scanner.consume(UInt8(ascii: "*")) {
                    self = .any
                    return
                }
                guard let tag = scanner.scanEntityTag() else {
                    self = .tags(tags)
                    return
                }
                tags.append(tag)
                scanner.skipWhitespace()
                guard scanner.isAtEnd || scanner.peek == UInt8(ascii: ",") else {
                    self = .tags(tags)
                    return
                }
            }
        }
        self = .tags(tags)
    }

    /// `If-Match` evaluation (RFC 9110 §13.1.1): `*` matches any current representation, otherwise
    /// a listed tag must match `current` by strong comparison.
    public func matchesStrongly(_ current: EntityTag) -> Bool {
        switch self {
        case .any: true
        case .tags(let tags): tags.contains { $0.matchesStrongly(current) }
        }
    }

    /// `If-None-Match` evaluation (RFC 9110 §13.1.2): `*` matches any current representation,
    /// otherwise a listed tag must match `current` by weak comparison.
    public func matchesWeakly(_ current: EntityTag) -> Bool {
        switch self {
        case .any: true
        case .tags(let tags): tags.contains { $0.matchesWeakly(current) }
        }
    }
}
