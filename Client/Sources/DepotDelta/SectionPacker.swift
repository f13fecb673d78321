/// A secondary compressor for the sections of a delta's windows (RFC 3284 §4.3), as the encoder
/// uses it: each kind of section is one stream across the windows, and each section is the
/// stream's next piece, flushed so it decodes alone after the ones before it.
///
/// Depot's is xdelta3's LZMA (``LZMASection`` decodes it); DepotStore makes it with liblzma,
/// which the client does not link.
public protocol SectionPacker: AnyObject {
    /// The id the delta's header names (RFC 3284 §4.1, `Secondary compressor ID`).
    var compressorID: UInt8 { get }

    /// The compressor's bytes for the next `section` of `kind`, or `nil` to leave the section
    /// as it is, unpacked and outside the stream. The encoder writes the section's size before
    /// them.
    func pack(_ section: UnsafeRawBufferPointer, kind: VCDIFFSectionKind) throws -> [UInt8]?
}

/// The three sections of a VCDIFF window (RFC 3284 §4.3).
public enum VCDIFFSectionKind: Int, Sendable, CaseIterable {
    case data
    case instructions
    case addresses
}
