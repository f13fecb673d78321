/// A codec refused its input or its settings, told in one line.
public struct CodecError: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// A decoder of one compressed stream given in pieces, as they arrive.
public protocol StreamDecoder: AnyObject {
    /// Whether the stream ended.
    var isFinished: Bool { get }
    /// Decodes `input`, giving `output` each piece decoded (valid only during the call).
    ///
    /// - Throws: ``CodecError`` for data that is not of the coding or follows the stream's end;
    ///   what `output` throws.
    func decode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws
}

extension CodecError {
    /// The bytes `decoder` makes of `encoded`, a whole stream, at most `maximumBytes` of them.
    static func decodeWhole(
        _ encoded: some Collection<UInt8>,
        by decoder: some StreamDecoder,
        name: String,
        maximumBytes: Int
    ) throws(Self) -> [UInt8] {
        var output: [UInt8] = []
        do {
            try Array(encoded).withUnsafeBytes { source in
                try decoder.decode(source) { chunk in
                    output += chunk
                    guard output.count <= maximumBytes else { throw CodecError("\(name) data decodes to more than \(maximumBytes) bytes") }
                }
            }
        } catch let error as CodecError {
            throw error
        } catch {
            throw CodecError("\(name) failed: \(error)")
        }
        guard decoder.isFinished else { throw CodecError("\(name) data is cut short") }
        return output
    }
}
