/// An error raised by the store, with a code callers can switch on and a message for people.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }

        /// The disk or quota is full.
        public static let noSpace = Code(name: "noSpace")
        /// A file or directory the store needs could not be read or written.
        public static let io = Code(name: "io")
        /// The input to a store operation was not acceptable.
        public static let invalidInput = Code(name: "invalidInput")
        /// A file is larger than the operation handles.
        public static let tooLarge = Code(name: "tooLarge")
    }

    public let code: Code
    public let message: String
    public let cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        cause.map { "\(message): \($0)" } ?? message
    }
}
