/// A VCDIFF instruction code table (RFC 3284 §5.4–5.6): each of the 256 opcodes names up to two
/// instructions, each with a type, a size (0: the size follows in the instruction section) and
/// an address mode.
struct CodeTable: Sendable {
    enum InstructionType: UInt8 {
        case noop = 0
        case add = 1
        case run = 2
        case copy = 3
    }

    struct Half: Sendable {
        var type: InstructionType
        var size: UInt8
        var mode: UInt8
    }

    var first: [Half]
    var second: [Half]
    /// Sizes of the address caches this table goes with.
    var nearCacheSize: Int
    var sameCacheSize: Int

    /// The table of RFC 3284 §5.6, with its caches of 4 near and 3 same addresses.
    static let `default`: CodeTable = {
        let noop = Half(type: .noop, size: 0, mode: 0)
        var first: [Half] = []
        var second: [Half] = []
        func entry(_ a: Half, _ b: Half = noop) {
            first.append(a)
            second.append(b)
        }
        entry(Half(type: .run, size: 0, mode: 0))
        for size in 0...17 { entry(Half(type: .add, size: UInt8(size), mode: 0)) }
        for mode in 0...8 {
            entry(Half(type: .copy, size: 0, mode: UInt8(mode)))
            for size in 4...18 { entry(Half(type: .copy, size: UInt8(size), mode: UInt8(mode))) }
        }
        for mode in 0...5 {
            for addSize in 1...4 {
                for copySize in 4...6 {
                    entry(Half(type: .add, size: UInt8(addSize), mode: 0), Half(type: .copy, size: UInt8(copySize), mode: UInt8(mode)))
                }
            }
        }
        for mode in 6...8 {
            for addSize in 1...4 {
                entry(Half(type: .add, size: UInt8(addSize), mode: 0), Half(type: .copy, size: 4, mode: UInt8(mode)))
            }
        }
        for mode in 0...8 {
            entry(Half(type: .copy, size: 4, mode: UInt8(mode)), Half(type: .add, size: 1, mode: 0))
        }
        return CodeTable(first: first, second: second, nearCacheSize: 4, sameCacheSize: 3)
    }()

    /// The table as the 1536-byte string of RFC 3284 §7: the arrays inst1, inst2, size1, size2,
    /// mode1 and mode2, 256 bytes each. A custom table is sent as a delta against this string
    /// of the default table.
    var bytes: [UInt8] {
        first.map(\.type.rawValue) + second.map(\.type.rawValue) + first.map(\.size) + second.map(\.size) + first.map(\.mode)
            + second.map(\.mode)
    }

    /// Reads a table from its 1536-byte string, checking that every mode exists for caches of
    /// the given sizes.
    init(bytes: [UInt8], nearCacheSize: Int, sameCacheSize: Int) throws(VCDIFFError) {
        guard bytes.count == 1536 else {
            throw VCDIFFError(.corrupt, "a code table has 1536 bytes, not \(bytes.count)")
        }
        let modes = 2 + nearCacheSize + sameCacheSize
        func half(_ index: Int, _ offset: Int) throws(VCDIFFError) -> Half {
            guard let type = InstructionType(rawValue: bytes[offset + index]) else {
                throw VCDIFFError(.corrupt, "code table entry \(index) has an unknown instruction type")
            }
            let mode = bytes[offset + 1024 + index]
            guard Int(mode) < modes else { throw VCDIFFError(.corrupt, "code table entry \(index) has address mode \(mode)") }
            return Half(type: type, size: bytes[offset + 512 + index], mode: mode)
        }
        var first: [Half] = []
        var second: [Half] = []
        for index in 0..<256 {
            first.append(try half(index, 0))
            second.append(try half(index, 256))
        }
        self.init(first: first, second: second, nearCacheSize: nearCacheSize, sameCacheSize: sameCacheSize)
    }

    private init(first: [Half], second: [Half], nearCacheSize: Int, sameCacheSize: Int) {
        self.first = first
        self.second = second
        self.nearCacheSize = nearCacheSize
        self.sameCacheSize = sameCacheSize
    }
}
