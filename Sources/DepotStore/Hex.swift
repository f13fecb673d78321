import DepotHTTP

extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal, two characters a byte.
    var hexString: String { Hex.string(self) }
}
