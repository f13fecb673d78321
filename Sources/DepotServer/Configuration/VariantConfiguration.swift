import Configuration
import DepotCodecs
import DepotHTTP

/// How the brotli and zstd variants of published content are made (`/blobs/{sha256}.br` and
/// `.zst`, listed by releases beside gzip's): once, when the content is uploaded or at the
/// latest before the release that first lists it is committed.
///
/// The defaults are for a file published once and downloaded by a fleet: the strongest
/// settings, brotli quality 11 with a 16 MiB window and zstd level 19 with a 128 MiB
/// long-distance window, which cost the publish about 2.6 and 0.8 seconds of CPU a megabyte
/// and save every download 30 to 35% of gzip's bytes on a SQLite catalog (docs/performance.md).
/// A window is capped by the file's size, so a client never needs more memory than the file's.
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
    /// Contents larger than this get no brotli or zstd variant: making one holds the file, the
    /// variants and the encoders' tables in memory at once (docs/performance.md measures the
    /// server's peak), and brotli at quality 11 costs seconds a megabyte.
    public var maximumBytes: Int64

    public init(
        brotli: Brotli.Settings? = Brotli.Settings(quality: 11, window: 24),
        zstd: Zstd.Settings? = Zstd.Settings(level: 19, longWindow: 27),
        minimumSavings: Double = 0.03,
        minimumBytes: Int64 = 64 * 1024 + 1,
        maximumBytes: Int64 = 256 << 20
    ) {
        self.brotli = brotli
        self.zstd = zstd
        self.minimumSavings = minimumSavings
        self.minimumBytes = minimumBytes
        self.maximumBytes = maximumBytes
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
        let brotliQuality = variants.int(forKey: "brotliQuality", default: defaults.brotli?.quality ?? 11)
        let brotliWindow = variants.int(forKey: "brotliWindow", default: defaults.brotli?.window ?? 24)
        let zstdLevel = variants.int(forKey: "zstdLevel", default: defaults.zstd?.level ?? 19)
        let zstdWindow = variants.int(forKey: "zstdLongWindow", default: defaults.zstd?.longWindow ?? 27)
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
        self.init(
            brotli: variants.bool(forKey: "brotli", default: true) ? .init(quality: brotliQuality, window: brotliWindow) : nil,
            zstd: variants.bool(forKey: "zstd", default: true) ? .init(level: zstdLevel, longWindow: zstdWindow == 0 ? nil : zstdWindow) : nil,
            minimumSavings: savings,
            minimumBytes: Int64(minimumBytes),
            maximumBytes: Int64(maximumBytes)
        )
    }
}
