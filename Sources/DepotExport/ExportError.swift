/// Why an export folder refuses what it is given: a document that is not what it says, a name
/// that cannot be an object of the tree, a source that lacks what a document names, an unsigned
/// document over a signed one. Nothing is placed for it.
public struct ExportError: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
