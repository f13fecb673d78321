/// A codec refused its input or its settings, told in one line.
public struct CodecError: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
