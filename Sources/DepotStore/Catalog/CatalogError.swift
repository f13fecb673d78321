/// Why the catalog cannot be used, or refused a change.
public struct CatalogError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure: callers map ``Code/conflict`` to a client error.
    public struct Code: Hashable, Sendable {
        let name: String
        /// The catalog cannot be opened or read.
        public static let unusable = Code(name: "unusable")
        /// The change conflicts with what is live (a path that would collide on a client).
        public static let conflict = Code(name: "conflict")
        /// The request is malformed: a path listed twice, a bad channel name.
        public static let invalid = Code(name: "invalid")
        /// A path, release or channel the request names does not exist.
        public static let notFound = Code(name: "notFound")
        /// The channel is not on the release a commit was made against (``ReleaseStore/ReleaseCommit/base``).
        public static let moved = Code(name: "moved")
        /// A release refers to versions retention has removed.
        public static let gone = Code(name: "gone")
    }

    public let code: Code
    public let message: String

    public init(_ message: String, code: Code = .unusable) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
