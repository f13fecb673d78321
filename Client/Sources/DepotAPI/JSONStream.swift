import Foundation

/// JSON written a part at a time to `write`, in buffers of ``bufferBytes``: how the client writes
/// its switch journal and the server its reply to a commit, each megabytes of JSON for 100,000
/// files. `JSONEncoder` builds the whole document's tree before its first byte (64 MiB for
/// 100,000 moves); here each element is encoded on its own, and only the buffer is held.
///
/// Written by hand: Foundation has no streaming JSON encoder, and none of the listed packages
/// writes one.
public struct JSONStream {
    public static let bufferBytes = 64 << 10

    private let write: ([UInt8]) throws -> Void
    private let encoder: JSONEncoder
    private var buffer: [UInt8] = []

    /// A stream that hands `write` a buffer at a time, with sorted keys and slashes unescaped.
    public init(write: @escaping ([UInt8]) throws -> Void) {
        self.write = write
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        buffer.reserveCapacity(Self.bufferBytes)
    }

    /// Appends `text` as it is: punctuation.
    public mutating func raw(_ text: String) {
        buffer += text.utf8
    }

    /// Appends `value`, encoded alone.
    public mutating func value<Value: Encodable>(_ value: Value) throws {
        buffer += try encoder.encode(value)
        if buffer.count >= Self.bufferBytes { try flush() }
    }

    /// Appends `"name":value`, and a comma unless `last`.
    public mutating func key<Value: Encodable>(_ name: String, _ element: Value, last: Bool = false) throws {
        raw("\"\(name)\":")
        try value(element)
        if !last { raw(",") }
    }

    /// Appends the array of `elements`, each encoded alone.
    public mutating func array<Elements: Sequence>(_ elements: Elements) throws where Elements.Element: Encodable {
        raw("[")
        var first = true
        for element in elements {
            if !first { raw(",") }
            first = false
            try value(element)
        }
        raw("]")
    }

    /// Writes what the buffer holds.
    public mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
