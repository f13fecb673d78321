/// The body of every refusal: `{"error": {"message": "…"}}`, as Hummingbird writes an
/// `HTTPError`.
public struct ErrorReply: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        public var message: String

        public init(message: String) {
            self.message = message
        }
    }

    public var error: Detail

    public init(message: String) {
        self.error = Detail(message: message)
    }
}
