/// rsync's weak checksum of a window of bytes (Tridgell's thesis, §3.1), as zsync uses it:
/// `a` is the sum of the bytes and `b` the sum of the running `a`s, each modulo 2¹⁶. Moving the
/// window one byte costs a few additions, which is what lets a client look for every block of
/// an index at every offset of its own file.
public struct RollingChecksum: Hashable, Sendable {
    private var a: UInt16 = 0
    private var b: UInt16 = 0
    /// The window's length.
    public let length: Int

    /// The checksum of `window`.
    public init(_ window: UnsafeRawBufferPointer) {
        length = window.count
        for (index, byte) in window.enumerated() {
            a &+= UInt16(byte)
            b &+= UInt16(truncatingIfNeeded: (window.count - index) &* Int(byte))
        }
    }

    /// The checksum as one number: `b` in the high half.
    public var value: UInt32 { UInt32(b) << 16 | UInt32(a) }

    /// Moves the window one byte on: `leaving` was its first byte, `entering` follows its last.
    @inline(__always)
    public mutating func roll(leaving: UInt8, entering: UInt8) {
        a = a &- UInt16(leaving) &+ UInt16(entering)
        b = b &- UInt16(truncatingIfNeeded: length &* Int(leaving)) &+ a
    }
}
