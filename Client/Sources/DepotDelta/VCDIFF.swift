/// Constants of the VCDIFF format (RFC 3284).
///
/// Depot writes and reads VCDIFF by hand: no package on this machine's list encodes or decodes
/// it, and the client may depend on nothing but Foundation, zlib and swift-crypto.
enum VCDIFF {
    /// `V C D` with their high bits set, then version 0 (RFC 3284 §4.1).
    static let magic: [UInt8] = [0xD6, 0xC3, 0xC4, 0x00]

    /// Bits of `Hdr_Indicator` (§4.1).
    enum HeaderIndicator {
        static let decompress: UInt8 = 0x01
        static let codeTable: UInt8 = 0x02
        /// xdelta3's extension: an application header (typically the file names) follows.
        static let applicationHeader: UInt8 = 0x04
    }

    /// Bits of `Win_Indicator` (§4.2).
    enum WindowIndicator {
        static let source: UInt8 = 0x01
        static let target: UInt8 = 0x02
        /// xdelta3's extension: an Adler-32 of the target window follows the section lengths.
        static let adler32: UInt8 = 0x04
    }

    /// Bits of `Delta_Indicator` (§4.3): which sections a secondary compressor packed.
    enum DeltaIndicator {
        static let dataCompressed: UInt8 = 0x01
        static let instructionsCompressed: UInt8 = 0x02
        static let addressesCompressed: UInt8 = 0x04
    }
}
