import CLzma
import DepotDelta

/// Packs patch sections as xdelta3's LZMA secondary compressor does (``DepotDelta/LZMASection``
/// reads them): one .xz stream a kind of section (LZMA2, no check), each section flushed as the
/// stream's next piece, and the stream never ended. liblzma does the compressing.
///
/// Preset 9e with the hash-chain match finder and small dictionaries, 256 KiB for data and 64 KiB
/// for instructions and addresses (whose sections are smaller): measured on `scripts/bench-delta`'s
/// patches, larger ones or the binary-tree finder make the same bytes within 0.2%, and the three
/// streams hold about 7 MiB together instead of 39 (or 2 GiB at `xz -9e`'s own settings).
/// Sections under ``minimumSection`` bytes stay unpacked: a stream's headers and a flush cost
/// about 30 bytes, more than LZMA saves on so little (at 64, a release page's patch grew from 119
/// to 149 bytes; 256 leaves the page's as it was and bench-delta's the same).
final class LZMASectionPacker: SectionPacker {
    let compressorID = LZMASection.compressorID
    static let minimumSection = 256
    /// The dictionary of each kind's stream.
    static func dictionarySize(_ kind: VCDIFFSectionKind) -> UInt32 { kind == .data ? 256 << 10 : 64 << 10 }

    private var streams: [UnsafeMutablePointer<lzma_stream>?] = Array(repeating: nil, count: VCDIFFSectionKind.allCases.count)

    deinit {
        for case let stream? in streams {
            lzma_end(stream)
            stream.deallocate()
        }
    }

    func pack(_ section: UnsafeRawBufferPointer, kind: VCDIFFSectionKind) throws -> [UInt8]? {
        guard section.count >= Self.minimumSection else { return nil }
        let stream = try stream(for: kind)
        var packed: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        stream.pointee.next_in = section.baseAddress!.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_in = section.count
        while true {
            let status = buffer.withUnsafeMutableBufferPointer { buffer in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = buffer.count
                return lzma_code(stream, LZMA_SYNC_FLUSH)
            }
            packed.append(contentsOf: buffer[0..<(buffer.count - stream.pointee.avail_out)])
            if status == LZMA_STREAM_END { break }
            guard status == LZMA_OK else { throw StoreError(.io, "liblzma failed to pack a patch section (\(status.rawValue))") }
        }
        stream.pointee.next_in = nil
        return packed
    }

    private func stream(for kind: VCDIFFSectionKind) throws -> UnsafeMutablePointer<lzma_stream> {
        if let stream = streams[kind.rawValue] { return stream }
        var options = lzma_options_lzma()
        // 9 | LZMA_PRESET_EXTREME (a macro Swift does not import).
        guard lzma_lzma_preset(&options, 9 | 0x8000_0000) == 0 else { throw StoreError(.io, "liblzma has no preset 9e") }
        options.dict_size = Self.dictionarySize(kind)
        options.mf = LZMA_MF_HC4
        let stream = UnsafeMutablePointer<lzma_stream>.allocate(capacity: 1)
        stream.initialize(to: lzma_stream())
        let status = withUnsafeMutablePointer(to: &options) { options in
            // LZMA_FILTER_LZMA2 (0x21), then the list's end (LZMA_VLI_UNKNOWN): macros Swift does not import.
            var filters = [lzma_filter(id: 0x21, options: options), lzma_filter(id: .max, options: nil)]
            return lzma_stream_encoder(stream, &filters, LZMA_CHECK_NONE)
        }
        guard status == LZMA_OK else {
            stream.deallocate()
            throw StoreError(.io, "liblzma could not start a stream (\(status.rawValue))")
        }
        streams[kind.rawValue] = stream
        return stream
    }
}
