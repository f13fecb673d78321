/// An encoder of one compressed stream given its input in pieces: memory stays at the
/// encoder's window and tables, whatever the size encoded (``Brotli/Encoder``, ``Zstd/Encoder``).
public protocol StreamEncoder: AnyObject {
    /// Encodes `input`, giving `output` each piece encoded (valid only during the call).
    ///
    /// - Throws: ``CodecError`` when the library fails; what `output` throws.
    func encode(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws
    /// Ends the stream, giving `output` its last pieces. Nothing may be encoded after.
    ///
    /// - Throws: ``CodecError`` when the library fails; what `output` throws.
    func finish(output: (UnsafeRawBufferPointer) throws -> Void) throws
}

extension StreamEncoder {
    /// `bytes` encoded whole, through the stream: for tests and small inputs.
    public func encodeWhole(_ bytes: [UInt8]) throws -> [UInt8] {
        var encoded: [UInt8] = []
        try bytes.withUnsafeBytes { try encode($0) { encoded += $0 } }
        try finish { encoded += $0 }
        return encoded
    }
}
