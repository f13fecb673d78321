/// The parts of a request that decide how a representation is answered: the method, the
/// precondition fields of RFC 9110 §13.1 and the `Range` field of §14.2.
///
/// Each field holds its raw field lines, in order; an empty array means the field is absent.
public struct ConditionalRequest: Hashable, Sendable {
    /// The request methods this evaluation distinguishes.
    public enum Method: Hashable, Sendable {
        case get
        case head
        case other
    }

    public var method: Method
    public var ifMatch: [String]
    public var ifNoneMatch: [String]
    public var ifModifiedSince: [String]
    public var ifUnmodifiedSince: [String]
    public var ifRange: [String]
    public var range: [String]

    public init(
        method: Method,
        ifMatch: [String] = [],
        ifNoneMatch: [String] = [],
        ifModifiedSince: [String] = [],
        ifUnmodifiedSince: [String] = [],
        ifRange: [String] = [],
        range: [String] = []
    ) {
        self.method = method
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.ifUnmodifiedSince = ifUnmodifiedSince
        self.ifRange = ifRange
        self.range = range
    }
}

/// The validators and size of the selected representation.
public struct RepresentationValidators: Hashable, Sendable {
    /// The representation's strong entity tag.
    public var entityTag: EntityTag
    /// The `Last-Modified` value, if the representation has one.
    public var lastModified: HTTPDate?
    /// Whether `lastModified` may serve as a strong validator (RFC 9110 §8.8.2.2): true when the
    /// origin knows the representation did not change twice within that second. Only then does
    /// the date form of `If-Range` match.
    public var lastModifiedIsStrong: Bool
    /// The length of the representation's content in bytes.
    public var length: Int64

    public init(entityTag: EntityTag, lastModified: HTTPDate?, lastModifiedIsStrong: Bool, length: Int64) {
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.lastModifiedIsStrong = lastModifiedIsStrong
        self.length = length
    }
}
