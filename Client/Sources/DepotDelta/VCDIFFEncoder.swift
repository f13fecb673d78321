/// Encodes RFC 3284 VCDIFF deltas that turn a source into a target.
///
/// The source is indexed once (``SourceIndex``); the target is then encoded window by window, so
/// only one window of it need be in memory. For each position the encoder tries, in order, the
/// source offset that continues the last copy (what in-place edits leave behind), then the
/// indexed source positions with the same hash, keeps the longest match, extends it backwards
/// over bytes not yet encoded, and emits ADD, RUN and COPY instructions with the default code
/// table. Output is plain VCDIFF with no extensions, so any RFC 3284 decoder (xdelta3,
/// open-vcdiff) reads it; with a ``SectionPacker``, its sections are packed by a secondary
/// compressor, which xdelta3 reads too when it is xdelta3's LZMA.
public struct VCDIFFEncoder: Sendable {
    /// How the encoder trades speed and memory for smaller deltas.
    public struct Options: Sendable {
        /// The largest target window: 8 MiB, like xdelta3's default.
        public var windowSize: Int
        /// Every `sourceStep`-th source position is indexed; smaller finds shorter matches and
        /// uses more memory (4 bytes per indexed position, plus the buckets).
        public var sourceStep: Int
        /// How many indexed positions with the same hash are tried.
        public var chainDepth: Int

        public init(windowSize: Int = 8 << 20, sourceStep: Int = 8, chainDepth: Int = 16) {
            precondition(windowSize > 0 && windowSize <= Int(Int32.max) && sourceStep > 0 && chainDepth > 0)
            self.windowSize = windowSize
            self.sourceStep = sourceStep
            self.chainDepth = chainDepth
        }
    }

    /// A continued copy shorter than this is not worth its instruction, nor a copy from earlier
    /// in the target its address. Both measured on `scripts/bench-delta`'s four cases with the
    /// sections packed (LZMA makes short literals cheap): 10 and 24 instead of 6 and 16 made the
    /// catalog's patches 1.8% and 4.5% smaller, the media's 0.1% larger.
    static let minimumContinuedMatch = 10
    static let minimumTargetMatch = 24
    /// How many recent copy displacements are tried before the index.
    static let recentDisplacementCount = 4
    /// A run of one byte at least this long becomes a RUN instead of data.
    static let minimumRun = 8

    public let source: [UInt8]
    public let options: Options
    let index: SourceIndex
    /// Source position minus target position of the last few copies, newest first: where an
    /// in-place edit resumes.
    private var recentDisplacements: [Int] = [0]
    private var targetPosition = 0

    /// The largest source the encoder indexes: 4 GiB less 2 bytes.
    public static let maximumSourceSize = SourceIndex.maximumSourceSize

    /// Indexes `source`.
    /// - Throws: ``VCDIFFError`` `.limitExceeded` for a source over ``maximumSourceSize``.
    public init(source: [UInt8], options: Options = .init()) throws(VCDIFFError) {
        guard source.count <= Self.maximumSourceSize else {
            throw VCDIFFError(.limitExceeded, "a source of \(source.count) bytes is more than the encoder indexes (\(Self.maximumSourceSize))")
        }
        self.source = source
        self.options = options
        self.index = source.withUnsafeBytes { SourceIndex(source: $0, step: options.sourceStep) }
    }

    /// The file header (RFC 3284 §4.1): the magic bytes and an empty indicator.
    public static let header: [UInt8] = header(compressorID: nil)

    /// The file header (RFC 3284 §4.1) of a delta whose sections `compressorID` packs.
    public static func header(compressorID: UInt8?) -> [UInt8] {
        guard let compressorID else { return VCDIFF.magic + [0] }
        return VCDIFF.magic + [VCDIFF.HeaderIndicator.decompress, compressorID]
    }

    /// Encodes `target` whole: the header and every window.
    public static func encode(source: [UInt8], target: [UInt8], options: Options = .init()) throws(VCDIFFError) -> [UInt8] {
        var encoder = try VCDIFFEncoder(source: source, options: options)
        var output = header
        target.withUnsafeBytes { target in
            var start = 0
            repeat {
                let end = min(target.count, start + options.windowSize)
                encoder.encodeWindow(UnsafeRawBufferPointer(rebasing: target[start..<end]), into: &output)
                start = end
            } while start < target.count
        }
        return output
    }

    /// Appends one window that encodes `target`, the next `target.count` bytes (at most
    /// ``Options/windowSize``) of the target. Call it for each piece, in order, after writing
    /// ``header``.
    public mutating func encodeWindow(_ target: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        // Without a packer, nothing in the window's writing throws.
        try! encodeWindow(target, packer: nil) { output.append(contentsOf: $0) }
    }

    /// Encodes one window as ``encodeWindow(_:into:)`` does, handing it to `output` in pieces
    /// (its header and each section) rather than copying it into one buffer. With `packer`
    /// (named in the ``header(compressorID:)`` written first), its sections are packed.
    public mutating func encodeWindow(
        _ target: UnsafeRawBufferPointer,
        packer: (any SectionPacker)?,
        output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        precondition(target.count <= options.windowSize, "a window is at most options.windowSize bytes")
        let instructions = source.withUnsafeBytes { source in findInstructions(source: source, target: target) }
        targetPosition += target.count

        // The source segment is the span of source the window's copies read.
        var low = Int.max
        var high = 0
        for case .copy(let address, let size) in instructions {
            low = min(low, Int(address))
            high = max(high, Int(address) + Int(size))
        }
        if low >= high { low = 0 }
        let segment = low < high ? (length: high - low, position: low) : nil
        let segmentLength = segment?.length ?? 0
        var writer = WindowWriter()
        var written = 0
        for instruction in instructions {
            switch instruction {
            case .add(let start, let count):
                writer.add(UnsafeRawBufferPointer(rebasing: target[Int(start)..<Int(start + count)]))
                written += Int(count)
            case .run(let byte, let count):
                writer.run(of: byte, count: Int(count))
                written += Int(count)
            case .copy(let address, let size):
                writer.copy(from: Int(address) - low, size: Int(size), here: segmentLength + written)
                written += Int(size)
            case .targetCopy(let start, let size):
                writer.copy(from: segmentLength + Int(start), size: Int(size), here: segmentLength + written)
                written += Int(size)
            }
        }
        try writer.write(targetLength: target.count, sourceSegment: segment, packer: packer, to: output)
    }

    /// One instruction of a window, in 32-bit fields (12 bytes, where a window's instructions
    /// would otherwise take twice the memory): windows are at most `Int32.max` bytes and the
    /// source at most ``maximumSourceSize``.
    enum Instruction {
        /// Target bytes `start..<start+count` of the window, as data.
        case add(start: UInt32, count: UInt32)
        case run(byte: UInt8, count: UInt32)
        /// `size` bytes from absolute source position `address`.
        case copy(address: UInt32, size: UInt32)
        /// `size` bytes from window position `start`, earlier in the target.
        case targetCopy(start: UInt32, size: UInt32)

        static func add(_ start: Int, _ count: Int) -> Self { .add(start: UInt32(start), count: UInt32(count)) }
        static func run(_ byte: UInt8, _ count: Int) -> Self { .run(byte: byte, count: UInt32(count)) }
        static func copy(_ address: Int, _ size: Int) -> Self { .copy(address: UInt32(address), size: UInt32(size)) }
        static func targetCopy(_ start: Int, _ size: Int) -> Self { .targetCopy(start: UInt32(start), size: UInt32(size)) }
    }

    private mutating func findInstructions(source: UnsafeRawBufferPointer, target: UnsafeRawBufferPointer) -> [Instruction] {
        var instructions: [Instruction] = []
        guard target.baseAddress != nil else { return instructions }
        var pending = 0  // start of the bytes not yet encoded
        var position = 0
        index.buckets.withUnsafeBufferPointer { buckets in
            index.chain.withUnsafeBufferPointer { chain in
                var finder = MatchFinder(
                    source: source,
                    target: target,
                    targetOffset: targetPosition,
                    buckets: buckets,
                    chain: chain,
                    index: index,
                    chainDepth: options.chainDepth,
                    targetTable: [Int32](repeating: -1, count: 1 << 18)
                )
                while position < target.count {
                    var match = finder.longest(at: position, displacements: recentDisplacements)
                    guard match.length > 0 else {
                        finder.remember(position)
                        position += 1
                        continue
                    }
                    // Lazy matching: a clearly longer match one byte on is worth a literal byte.
                    if match.length < 256, position + 1 < target.count {
                        let next = finder.longest(at: position + 1, displacements: recentDisplacements)
                        if next.length > match.length + 1 {
                            position += 1
                            match = next
                        }
                    }
                    // Extend backwards over bytes not yet encoded.
                    let from = match.inTarget ? UnsafeRawBufferPointer(target) : source
                    var back = 0
                    while position - back > pending, match.source - back > 0,
                        from[match.source - back - 1] == target[position - back - 1]
                    {
                        back += 1
                    }
                    Self.appendLiteral(target, from: pending, to: position - back, into: &instructions)
                    if match.inTarget {
                        instructions.append(.targetCopy(match.source - back, match.length + back))
                    } else {
                        instructions.append(.copy(match.source - back, match.length + back))
                        remember(displacement: match.source - (targetPosition + position))
                    }
                    for covered in stride(from: position, to: position + match.length, by: 16) { finder.remember(covered) }
                    position += match.length
                    pending = position
                }
            }
        }
        Self.appendLiteral(target, from: pending, to: target.count, into: &instructions)
        return instructions
    }

    private mutating func remember(displacement: Int) {
        if let index = recentDisplacements.firstIndex(of: displacement) {
            recentDisplacements.remove(at: index)
        } else if recentDisplacements.count == Self.recentDisplacementCount {
            recentDisplacements.removeLast()
        }
        recentDisplacements.insert(displacement, at: 0)
    }

    /// Finds the longest source match for a target position.
    struct MatchFinder {
        let source: UnsafeRawBufferPointer
        let target: UnsafeRawBufferPointer
        /// Where the window starts in the whole target.
        let targetOffset: Int
        let buckets: UnsafeBufferPointer<UInt32>
        let chain: UnsafeBufferPointer<UInt32>
        let index: SourceIndex
        let chainDepth: Int
        /// The newest window position of each 16-byte hash seen so far: matches within the target.
        var targetTable: [Int32]

        /// Records window position `position` for later target matches.
        @inline(__always)
        mutating func remember(_ position: Int) {
            guard target.count - position >= SourceIndex.hashLength else { return }
            targetTable[SourceIndex.hash(target.baseAddress! + position, shift: 64 - 18)] = Int32(position)
        }

        /// Tries, in order, where recent copies would continue (what in-place edits leave
        /// behind), then the indexed source positions with the same hash.
        @inline(__always)
        func longest(at position: Int, displacements: [Int]) -> (length: Int, source: Int, inTarget: Bool) {
            let remaining = target.count - position
            let here = target.baseAddress! + position
            var best = (length: 0, source: 0, inTarget: false)
            for displacement in displacements {
                let predicted = targetOffset + position + displacement
                guard predicted >= 0, predicted < source.count else { continue }
                let length = commonPrefixLength(source.baseAddress! + predicted, here, limit: min(remaining, source.count - predicted))
                if length >= VCDIFFEncoder.minimumContinuedMatch, length > best.length { best = (length, predicted, false) }
            }
            let hashLength = SourceIndex.hashLength
            guard best.length < 64, remaining >= hashLength else { return best }
            let earlier = Int(targetTable[SourceIndex.hash(here, shift: 64 - 18)])
            if earlier >= 0, earlier < position {
                let length = commonPrefixLength(target.baseAddress! + earlier, here, limit: remaining)
                if length >= VCDIFFEncoder.minimumTargetMatch, length > best.length { best = (length, earlier, true) }
            }
            guard source.count >= hashLength else { return best }
            var entry = buckets[SourceIndex.hash(here, shift: index.shift)]
            var depth = 0
            while entry != 0, depth < chainDepth {
                let candidate = Int(entry - 1) * index.step
                let length = commonPrefixLength(source.baseAddress! + candidate, here, limit: min(remaining, source.count - candidate))
                if length >= hashLength, length > best.length { best = (length, candidate, false) }
                entry = chain[Int(entry - 1)]
                depth += 1
            }
            return best
        }
    }

    /// Bytes no copy covers: ADDs, with long runs of one byte as RUNs.
    private static func appendLiteral(_ target: UnsafeRawBufferPointer, from start: Int, to end: Int, into instructions: inout [Instruction]) {
        var addStart = start
        var position = start
        while position < end {
            let byte = target[position]
            var runEnd = position + 1
            while runEnd < end, target[runEnd] == byte { runEnd += 1 }
            if runEnd - position >= minimumRun {
                if position > addStart { instructions.append(.add(addStart, position - addStart)) }
                instructions.append(.run(byte, runEnd - position))
                addStart = runEnd
            }
            position = runEnd
        }
        if end > addStart { instructions.append(.add(addStart, end - addStart)) }
    }
}
