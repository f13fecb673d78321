import Configuration
import DepotCodecs
import DepotDelta
import DepotHTTP

/// How the brotli and zstd variants of published content are made (`/blobs/{sha256}.br` and
/// `.zst`, listed by releases beside gzip's): once, in the background after the commit
/// (``background``), where a sample says they can pay.
///
/// The defaults were measured (docs/performance.md): brotli quality 9 with a 4 MiB window and
/// zstd level 19 with a 64 MiB long-distance window make a cold install of the bench catalog
/// 0.74× (brotli) and 0.68× (zstd) of gzip's bytes, for about 0.3 and 1 second of CPU a
/// megabyte, one encoder at a time in under 256 MiB; brotli quality 11 with a 16 MiB window
/// saves 12% more than quality 9 at 8 times its CPU and twice its memory. A window is capped by
/// the file's size, so a client never needs more memory than the file's.
public struct VariantConfiguration: Hashable, Sendable {
    /// Brotli's settings, or `nil` for no brotli variants.
    public var brotli: Brotli.Settings?
    /// Zstd's settings, or `nil` for no zstd variants.
    public var zstd: Zstd.Settings?
    /// The fraction a variant must save against the next best download a client may take
    /// instead (the gzip variant, or the content when it has none) to be kept: a variant
    /// costs its bytes on disk and an object in every export and mirror.
    public var minimumSavings: Double
    /// Contents smaller than this get no brotli or zstd variant: files of at most 64 KiB travel
    /// to a cold client in their page's pack, as gzip (``ReleasePage/packMemberMaximumBytes``).
    public var minimumBytes: Int64
    /// Contents larger than this get no brotli or zstd variant: making one costs seconds of CPU
    /// a megabyte (the encoders stream the file, so memory stays at one encoder's window and
    /// tables whatever the size: docs/performance.md measures the server's peak).
    public var maximumBytes: Int64
    /// Whether the variants are made after the commit, in the background (the default): a
    /// publish returns once its files and their gzip variants are stored, and a variant is
    /// served on `/files/` once made and listed by the channel's next release. `false` makes
    /// them before the commit that first lists a content, so that its first clients take them,
    /// at the publish's cost (docs/performance.md).
    public var background: Bool
    /// The most contents waiting for their variants (``VariantMaker``): past it a request is
    /// refused, logged and counted (`depot_variant_requests_refused_total`), and the contents a
    /// channel lists that lack variants are found again in the catalog once the queue drained.
    /// The queue holds contents' names, never their bytes.
    public var maximumPending: Int

    public init(
        brotli: Brotli.Settings? = Brotli.Settings(quality: 9, window: 22),
        zstd: Zstd.Settings? = Zstd.Settings(level: 19, longWindow: 26),
        minimumSavings: Double = 0.03,
        minimumBytes: Int64 = 64 * 1024 + 1,
        maximumBytes: Int64 = 256 << 20,
        background: Bool = true,
        maximumPending: Int = 1024
    ) {
        self.brotli = brotli
        self.zstd = zstd
        self.minimumSavings = minimumSavings
        self.minimumBytes = minimumBytes
        self.maximumBytes = maximumBytes
        self.background = background
        self.maximumPending = maximumPending
    }

    /// No brotli or zstd variants.
    public static let none = VariantConfiguration(brotli: nil, zstd: nil)

    /// The variants of test servers (``testing(_:)``): none unless a test asks for some.
    package static func testing(_ configured: Self) -> Self {
        configured == Self() ? .none : configured
    }

    /// One variant's encoding at its settings.
    public enum Encoding: Hashable, Sendable {
        case brotli(Brotli.Settings)
        case zstd(Zstd.Settings)

        public var coding: ContentCoding {
            switch self {
            case .brotli: .br
            case .zstd: .zstd
            }
        }

        /// The settings, as the catalog records them: `q11w24`, `l19w27` (`w0`: no long window).
        public var settingsText: String {
            switch self {
            case .brotli(let settings): "q\(settings.quality)w\(settings.window)"
            case .zstd(let settings): "l\(settings.level)w\(settings.longWindow ?? 0)"
            }
        }

        /// A stream encoder of a content of `size` bytes: its window and tables sized by it.
        public func encoder(size: Int64) throws(CodecError) -> any StreamEncoder {
            switch self {
            case .brotli(let settings): try Brotli.Encoder(settings: settings, sizeHint: size)
            case .zstd(let settings): try Zstd.Encoder(settings: settings, size: size)
            }
        }

        /// `bytes` encoded.
        public func encode(_ bytes: [UInt8]) throws(CodecError) -> [UInt8] {
            switch self {
            case .brotli(let settings): try Brotli.compress(bytes, settings: settings)
            case .zstd(let settings): try Zstd.compress(bytes, settings: settings)
            }
        }
    }

    /// The encodings turned on.
    public var encodings: [Encoding] {
        [brotli.map(Encoding.brotli), zstd.map(Encoding.zstd)].compactMap { $0 }
    }

    /// Whether content of `size` bytes gets variants.
    public func makesVariants(ofSize size: Int64) -> Bool {
        (brotli != nil || zstd != nil) && size >= minimumBytes && size <= maximumBytes
    }

    /// Whether brotli and zstd are worth trying on a content whose gzip variant has `gzipSize`
    /// bytes (`nil`: none, because deflate saved too little of it), judged from `samples` of
    /// it (``sampleOffsets(size:)``): yes when it has a gzip variant (what gzip saves, brotli and
    /// zstd save more of), else only when a sample may save ``minimumSavings``
    /// (``CompressionSample``). An incompressible file (random bytes, media, archives) so costs
    /// no brotli or zstd time. A file whose only repetitions lie farther apart than a sample
    /// (two copies of one random megabyte) is judged incompressible: it is served as gzip or
    /// as it is, its bytes the only cost.
    public func worthTrying(gzipSize: Int64?, samples: [UnsafeRawBufferPointer]) -> Bool {
        gzipSize != nil || samples.contains { CompressionSample.mayPay($0, minimumSavings: minimumSavings) }
    }

    /// Where the samples of a content of `size` bytes start: its start, middle and end, each
    /// ``CompressionSample/sampleSize`` long (fewer when the content is shorter than three).
    public static func sampleOffsets(size: Int64) -> [Int64] {
        let length = Int64(CompressionSample.sampleSize)
        guard size > length else { return [0] }
        return Array(Set([0, (size - length) / 2, size - length])).sorted()
    }

    /// Whether a variant of `size` bytes is kept for a content of `contentSize` bytes whose gzip
    /// variant has `gzipSize` bytes (`nil`: none): when it saves ``minimumSavings`` of the
    /// smaller of the two, the download a client that cannot decode it takes instead. A brotli
    /// variant is not weighed against the zstd one: a client may decode one and not the other
    /// (Apple's Compression reads brotli, not zstd).
    public func keeps(size: Int64, contentSize: Int64, gzipSize: Int64?) -> Bool {
        let nextBest = min(contentSize, gzipSize ?? contentSize)
        return Double(size) <= Double(nextBest) * (1 - minimumSavings)
    }
}

extension VariantConfiguration {
    /// Reads the `variants.*` keys from the `variants` scope (see
    /// ``ServerConfiguration/init(reader:)``).
    init(reader variants: ConfigReader) throws {
        let defaults = Self()
        let brotliQuality = variants.int(forKey: "brotliQuality", default: defaults.brotli?.quality ?? 9)
        let brotliWindow = variants.int(forKey: "brotliWindow", default: defaults.brotli?.window ?? 22)
        let zstdLevel = variants.int(forKey: "zstdLevel", default: defaults.zstd?.level ?? 19)
        let zstdWindow = variants.int(forKey: "zstdLongWindow", default: defaults.zstd?.longWindow ?? 26)
        guard (0...11).contains(brotliQuality), (10...24).contains(brotliWindow) else {
            throw ConfigurationError("variants.brotliQuality must be between 0 and 11, variants.brotliWindow between 10 and 24")
        }
        guard (1...19).contains(zstdLevel), zstdWindow == 0 || (10...27).contains(zstdWindow) else {
            throw ConfigurationError("variants.zstdLevel must be between 1 and 19, variants.zstdLongWindow 0 (none) or between 10 and 27")
        }
        let savings = variants.number(forKey: "minimumSavings", default: defaults.minimumSavings)
        guard (0..<1).contains(savings) else { throw ConfigurationError("variants.minimumSavings must be at least 0 and below 1") }
        let minimumBytes = variants.int(forKey: "minimumBytes", default: Int(defaults.minimumBytes))
        let maximumBytes = variants.int(forKey: "maximumBytes", default: Int(defaults.maximumBytes))
        guard minimumBytes >= 1, maximumBytes >= minimumBytes else {
            throw ConfigurationError("variants.minimumBytes must be at least 1, variants.maximumBytes at least variants.minimumBytes")
        }
        let maximumPending = variants.int(forKey: "maximumPending", default: defaults.maximumPending)
        guard maximumPending >= 1 else { throw ConfigurationError("variants.maximumPending must be at least 1") }
        self.init(
            brotli: variants.bool(forKey: "brotli", default: true) ? .init(quality: brotliQuality, window: brotliWindow) : nil,
            zstd: variants.bool(forKey: "zstd", default: true) ? .init(level: zstdLevel, longWindow: zstdWindow == 0 ? nil : zstdWindow) : nil,
            minimumSavings: savings,
            minimumBytes: Int64(minimumBytes),
            maximumBytes: Int64(maximumBytes),
            background: variants.bool(forKey: "background", default: defaults.background),
            maximumPending: maximumPending
        )
    }
}
