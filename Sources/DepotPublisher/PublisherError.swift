/// Why a publish cannot go on, in one sentence for the command's error line.
public struct PublisherError: Error, CustomStringConvertible, Sendable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
