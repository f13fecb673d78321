/// An entity tag (RFC 9110 §8.8.3): an opaque validator, strong or weak.
///
/// ```
/// entity-tag = [ weak ] opaque-tag
/// weak       = %s"W/"
/// opaque-tag = DQUOTE *etagc DQUOTE
/// etagc      = %x21 / %x23-7E / obs-text
/// ```
public struct EntityTag: Hashable, Sendable, CustomStringConvertible {
    /// The characters between the double quotes.
    public let opaqueTag: String
    /// Whether the tag is weak (`W/"…"`).
    public let isWeak: Bool

    /// Creates a tag from its opaque part; returns `nil` when `opaqueTag` holds a character that
    /// `etagc` does not allow (a double quote, a space or a control character).
    public init?(opaqueTag: String, isWeak: Bool = false) {
        guard opaqueTag.utf8.allSatisfy(Self.isEntityTagCharacter) else { return nil }
        self.opaqueTag = opaqueTag
        self.isWeak = isWeak
    }

    /// Parses one complete entity tag, such as `"abc"` or `W/"abc"`; surrounding whitespace is allowed.
    public init?(_ text: some StringProtocol) {
        var scanner = FieldScanner(text)
        scanner.skipWhitespace()
        guard let tag = scanner.scanEntityTag() else { return nil }
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { return nil }
        self = tag
    }

    init(unchecked opaqueTag: String, isWeak: Bool) {
        self.opaqueTag = opaqueTag
        self.isWeak = isWeak
    }

    /// The field value form: `"abc"` or `W/"abc"`.
    public var description: String {
        isWeak ? "W/\"\(opaqueTag)\"" : "\"\(opaqueTag)\""
    }

    /// Strong comparison (RFC 9110 §8.8.3.2): both tags are strong and their opaque tags are equal.
    public func matchesStrongly(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaqueTag == other.opaqueTag
    }

    /// Weak comparison (RFC 9110 §8.8.3.2): the opaque tags are equal, whether or not either is weak.
    public func matchesWeakly(_ other: EntityTag) -> Bool {
        opaqueTag == other.opaqueTag
    }

    static func isEntityTagCharacter(_ byte: UInt8) -> Bool {
        byte == 0x21 || (0x23...0x7E).contains(byte) || byte >= 0x80
    }
}
