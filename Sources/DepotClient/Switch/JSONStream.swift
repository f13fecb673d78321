import Foundation

/// JSON written a part at a time to `write`, in buffers of ``bufferBytes``: how the client writes
/// its switch journal, which for 100,000 files is megabytes of JSON. `JSONEncoder` builds the
/// whole document's tree before its first byte (64 MiB for 100,000 moves); here each element is
/// encoded on its own, and only the buffer is held.
///
/// Written by hand: Foundation has no streaming JSON encoder, and none of the listed packages
/// writes one.
struct JSONStream {
    static let bufferBytes = 64 << 10

    private let write: ([UInt8]) throws -> Void
    private let encoder: JSONEncoder
    private var buffer: [UInt8] = []

    init(write: @escaping ([UInt8]) throws -> Void) {
        self.write = write
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        buffer.reserveCapacity(Self.bufferBytes)
    }

    /// Appends `text` as it is: punctuation.
    mutating func raw(_ text: String) {
        buffer += text.utf8
    }

    /// Appends `value`, encoded alone.
    mutating func value<Value: Encodable>(_ value: Value) throws {
        buffer += try encoder.encode(value)
        if buffer.count >= Self.bufferBytes { try flush() }
    }

    /// Appends `"name":value`, and a comma unless `last`.
    mutating func key<Value: Encodable>(_ name: String, _ element: Value, last: Bool = false) throws {
        raw("\"\(name)\":")
        try value(element)
        if !last { raw(",") }
    }

    /// Appends the array of `elements`, each encoded alone.
    mutating func array<Elements: Sequence>(_ elements: Elements) throws where Elements.Element: Encodable {
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
    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

extension ReleaseJournal {
    /// Writes the journal as its JSON (the form `Decodable` reads), one move and one removal at a
    /// time.
    func encode(into stream: inout JSONStream) throws {
        stream.raw("{")
        if let folders { try stream.key("folders", folders) }
        if let format { try stream.key("format", format) }
        stream.raw("\"moves\":")
        try stream.array(moves)
        stream.raw(",\"removals\":")
        try stream.array(removals)
        stream.raw(",")
        if let removalsDone { try stream.key("removalsDone", removalsDone) }
        try stream.key("state", state, last: tree == nil)
        if let tree { try stream.key("tree", tree, last: true) }
        stream.raw("}")
    }
}
