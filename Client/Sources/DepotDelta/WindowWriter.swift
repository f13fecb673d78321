/// Writes the instructions of one VCDIFF window with the default code table (RFC 3284 §5.6),
/// packing an ADD of up to 4 bytes and the COPY after it, or a 4-byte COPY and the 1-byte ADD
/// after it, into one opcode as the table allows.
struct WindowWriter {
    private(set) var data: [UInt8] = []
    private(set) var instructions: [UInt8] = []
    private(set) var addresses: [UInt8] = []
    private var cache = AddressCache(nearSize: 4, sameSize: 3)

    /// The last opcode while it can still absorb a second instruction.
    private enum OpenOpcode {
        case add(size: Int)
        case copyOfFour(mode: Int)
    }

    private var open: OpenOpcode?

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        let size = bytes.count
        guard size > 0 else { return }
        data.append(contentsOf: bytes)
        if size == 1, case .copyOfFour(let mode) = open {
            instructions[instructions.count - 1] = UInt8(247 + mode)
            open = nil
        } else if size <= 17 {
            instructions.append(UInt8(1 + size))
            open = size <= 4 ? .add(size: size) : nil
        } else {
            instructions.append(1)
            VCDIFFInteger.append(size, to: &instructions)
            open = nil
        }
    }

    mutating func run(of byte: UInt8, count: Int) {
        instructions.append(0)
        VCDIFFInteger.append(count, to: &instructions)
        data.append(byte)
        open = nil
    }

    /// A COPY of `size` bytes from `address` in the window's address space; `here` is where the
    /// copy writes in that space.
    mutating func copy(from address: Int, size: Int, here: Int) {
        let mode = Int(cache.encode(address, here: here, into: &addresses))
        if case .add(let addSize) = open {
            if mode <= 5, (4...6).contains(size) {
                instructions[instructions.count - 1] = UInt8(163 + 12 * mode + 3 * (addSize - 1) + (size - 4))
                open = nil
                return
            }
            if mode >= 6, size == 4 {
                instructions[instructions.count - 1] = UInt8(235 + 4 * (mode - 6) + (addSize - 1))
                open = nil
                return
            }
        }
        if (4...18).contains(size) {
            instructions.append(UInt8(19 + 16 * mode + size - 3))
            open = size == 4 ? .copyOfFour(mode: mode) : nil
        } else {
            instructions.append(UInt8(19 + 16 * mode))
            VCDIFFInteger.append(size, to: &instructions)
            open = nil
        }
    }

    /// Hands the whole window (RFC 3284 §4.2–4.3) to `output` in pieces: its header, then each
    /// section as it is held, never copied into one buffer; with `packer`, the sections it packs
    /// in their packed form (the section's size, then the packer's bytes).
    func write(
        targetLength: Int,
        sourceSegment: (length: Int, position: Int)?,
        packer: (any SectionPacker)?,
        to output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var sections = [data, instructions, addresses]
        var packed: UInt8 = 0
        if let packer {
            for kind in VCDIFFSectionKind.allCases where !sections[kind.rawValue].isEmpty {
                let section = sections[kind.rawValue]
                guard let bytes = try section.withUnsafeBytes({ try packer.pack($0, kind: kind) }) else { continue }
                var replacement: [UInt8] = []
                VCDIFFInteger.append(section.count, to: &replacement)
                sections[kind.rawValue] = replacement + bytes
                packed |= 1 << UInt8(kind.rawValue)
            }
        }
        var header: [UInt8] = []
        if let sourceSegment {
            header.append(VCDIFF.WindowIndicator.source)
            VCDIFFInteger.append(sourceSegment.length, to: &header)
            VCDIFFInteger.append(sourceSegment.position, to: &header)
        } else {
            header.append(0)
        }
        var delta: [UInt8] = []
        VCDIFFInteger.append(targetLength, to: &delta)
        delta.append(packed)  // Delta_Indicator: which sections the secondary compressor packed
        for section in sections { VCDIFFInteger.append(section.count, to: &delta) }
        VCDIFFInteger.append(delta.count + sections.reduce(0) { $0 + $1.count }, to: &header)
        header += delta
        for piece in [header] + sections where !piece.isEmpty {
            try piece.withUnsafeBytes(output)
        }
    }
}
