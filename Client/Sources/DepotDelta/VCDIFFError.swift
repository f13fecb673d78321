/// Why a VCDIFF delta could not be decoded. Every malformed, truncated or hostile input ends in
/// one of these; none of them crashes or allocates more than the decoder's limits allow.
public struct VCDIFFError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public enum Code: Hashable, Sendable {
        /// The data is not VCDIFF, or is damaged.
        case corrupt
        /// The data ends before the delta does.
        case truncated
        /// A feature the decoder does not support, such as a secondary compressor.
        case unsupported
        /// The delta asks for more than the decoder's limits allow.
        case limitExceeded
        /// The delta was made against other source bytes (an Adler-32 or size check failed).
        case wrongSource
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "VCDIFF: \(message)" }
}
