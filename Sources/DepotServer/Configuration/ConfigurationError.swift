/// A configuration value that cannot be used, with the reason.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
