/// Why a rule refuses what a document says: a release a client cannot take as it is.
public struct PolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: Hashable, Sendable {
        let name: String
        /// A document's content breaks a rule (two paths that would be one file).
        public static let corrupt = Code(name: "corrupt")
        /// The app is too old for every release the document offers.
        public static let incompatible = Code(name: "incompatible")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
