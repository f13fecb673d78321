import Configuration
import DepotDelta
import Foundation

/// How publishing behaves.
public struct PublishConfiguration: Sendable {
    /// Bearer tokens that may publish. Empty: publishing is disabled.
    public var tokens: [String]
    /// The largest upload accepted, in bytes.
    public var maxUploadBytes: Int64
    /// How many versions of each path stay available (the live one included).
    public var keepVersions: Int
    /// How many releases are kept besides those a channel points to: the newest ones, which
    /// `depot release promote` can go back to.
    public var keepReleases: Int
    /// How long a retired version and its blob, or a retired release, stay available, for
    /// downloads under way.
    public var retiredGracePeriod: Duration
    /// How often retired versions and unreferenced blobs are collected.
    public var collectionInterval: Duration
    /// How long a blob uploaded by `PUT /v1/blobs/…` waits for a release to name it.
    public var uploadLifetime: Duration
    /// The largest release commit (`POST /v1/releases`) body, in bytes.
    public var maxCommitBytes: Int
    /// The longest logical path accepted, in bytes.
    public var maxPathLength: Int
    /// The most hashes one `POST /v1/blobs/missing` may ask about.
    public var maxMissingHashes: Int
    /// The largest blob of a batch (`POST /v1/blobs`), in bytes: each is held in memory while
    /// it is hashed and compressed. Larger ones are uploaded alone.
    public var maxBatchBlobBytes: Int
    /// The most blobs one batch may hold.
    public var maxBatchBlobs: Int
    /// The largest batch body, in bytes (each of its blobs is also held to `maxUploadBytes`).
    public var maxBatchBytes: Int64
    /// How patches between versions are made.
    public var deltas: DeltaConfiguration

    public init(
        tokens: [String] = [],
        maxUploadBytes: Int64 = 4 << 30,
        keepVersions: Int = 5,
        keepReleases: Int = 20,
        retiredGracePeriod: Duration = .seconds(600),
        collectionInterval: Duration = .seconds(60),
        uploadLifetime: Duration = .seconds(86400),
        maxCommitBytes: Int = 64 << 20,
        maxPathLength: Int = 1024,
        maxMissingHashes: Int = 100_000,
        maxBatchBlobBytes: Int = 1 << 20,
        maxBatchBlobs: Int = 10_000,
        maxBatchBytes: Int64 = 64 << 20,
        deltas: DeltaConfiguration = .init()
    ) {
        self.tokens = tokens
        self.maxUploadBytes = maxUploadBytes
        self.keepVersions = keepVersions
        self.keepReleases = keepReleases
        self.retiredGracePeriod = retiredGracePeriod
        self.collectionInterval = collectionInterval
        self.uploadLifetime = uploadLifetime
        self.maxCommitBytes = maxCommitBytes
        self.maxPathLength = maxPathLength
        self.maxMissingHashes = maxMissingHashes
        self.maxBatchBlobBytes = maxBatchBlobBytes
        self.maxBatchBlobs = maxBatchBlobs
        self.maxBatchBytes = maxBatchBytes
        self.deltas = deltas
    }
}

/// How patches between versions are made: before a release is committed, from earlier
/// versions of each changed path at growing distances; from any other earlier version the
/// catalog holds, once, when a client asks for it; and the block index of each large content.
public struct DeltaConfiguration: Sendable {
    /// From which earlier versions a publish makes patches, counted back from the new content
    /// (1 is the content before it). The default 1, 2 and 4 covers the clients of a daily
    /// release who sync weekly with patches made in advance, at three a publish as before; a
    /// patch's cost grows with the change it spans, so 8 and 16 would more than double the
    /// publish's (docs/performance.md), and those clients get theirs on request. Empty makes
    /// no patch at all, of files or documents, in advance or on request.
    public var distances: [Int]
    /// Whether a patch from any other version of a path, earlier or later, is made when a client
    /// first asks for it (`/deltas/{from}/{to}`), once per pair, one at a time.
    public var onRequest: Bool
    /// The most pairs waiting for an on-request patch; a request beyond them gets 503 with
    /// `Retry-After`, and the client downloads the file another way.
    public var maximumPendingRequests: Int
    /// The block size of block indexes (`/blobs/{sha256}.blocks`), in bytes: a quarter of
    /// SQLite's default 4 KiB page, which halves what a client whose copy changed fetches
    /// against whole pages (docs/performance.md).
    public var blockSize: Int
    /// Contents smaller than this get no block index; 0 turns block indexes off.
    public var blockIndexMinimumBytes: Int64

    /// Whether content of `size` bytes gets a block index (``blockIndexMinimumBytes``): the one
    /// rule of an upload indexed as it arrives and of an index made after.
    public func indexesBlocks(ofSize size: Int64) -> Bool {
        blockIndexMinimumBytes > 0 && size >= blockIndexMinimumBytes
    }
    /// Contents smaller than this get no patch, to them or from them: a patch's request costs
    /// a round trip and about half a kilobyte of header fields each way, more than it can save
    /// on a file of a few kilobytes, and making it costs the publish a catalog commit. 0 makes
    /// patches for every size.
    public var patchMinimumBytes: Int64
    /// A patch is kept only when it is at most this fraction of the full download (the gzip
    /// variant, or the content when it has none).
    public var maximumRatio: Double
    /// Every how many bytes the encoder indexes the old version: 8 uses about one old-version
    /// size of memory besides the old version itself; 4 finds more matches in rebuilt files
    /// (about 12% smaller patches for a VACUUMed SQLite file) with about 1.7 times as much.
    public var indexStep: Int

    /// The largest earlier version a patch is made from, in bytes. The encoder holds the old
    /// version and its index in memory (about 1.75 times its size with `indexStep` 8), so a
    /// larger one gets no patch; clients download the new version whole.
    public var maximumSourceBytes: Int64

    /// Whether the patches' VCDIFF sections are packed with LZMA, as `xdelta3 -9` packs them
    /// (secondary compressor 2): 8 to 21% smaller patches. Depot's client and xdelta3 read
    /// them; a VCDIFF decoder without secondary compressors (`A-IM: vcdiff` clients other than
    /// Depot's, clients built before it) does not.
    public var packSections: Bool

    /// The most entity tags of an RFC 3229 request's `If-None-Match` looked up as bases of a
    /// patch; the others are ignored (each costs a catalog read).
    public var maximumBaseTags: Int

    public init(
        distances: [Int] = [1, 2, 4],
        onRequest: Bool = true,
        maximumPendingRequests: Int = 16,
        blockSize: Int = 1024,
        blockIndexMinimumBytes: Int64 = 1 << 20,
        patchMinimumBytes: Int64 = 4096,
        maximumRatio: Double = 0.5,
        indexStep: Int = 8,
        maximumSourceBytes: Int64 = 1 << 30,
        packSections: Bool = true,
        maximumBaseTags: Int = 8
    ) {
        self.distances = distances
        self.onRequest = onRequest
        self.maximumPendingRequests = maximumPendingRequests
        self.blockSize = blockSize
        self.blockIndexMinimumBytes = blockIndexMinimumBytes
        self.patchMinimumBytes = patchMinimumBytes
        self.maximumRatio = maximumRatio
        self.indexStep = indexStep
        self.maximumSourceBytes = maximumSourceBytes
        self.packSections = packSections
        self.maximumBaseTags = maximumBaseTags
    }
}

extension PublishConfiguration {
    /// Reads the `publish.*` keys from the `publish` scope, and its deltas' from the `deltas`
    /// scope (see ``ServerConfiguration/init(reader:)``).
    init(reader publish: ConfigReader, deltas: ConfigReader) throws {
        let defaults = PublishConfiguration()
        var tokens = publish.stringArray(forKey: "tokens", isSecret: true, default: [])
        for token in tokens { try BearerAuthenticator.validate(token, key: "publish.tokens") }
        if let tokenFile = publish.string(forKey: "tokenFile") {
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw ConfigurationError("publish.tokenFile \(tokenFile) cannot be read")
            }
            // One token a line (LF or CRLF); blank lines are skipped. Only ASCII spaces and tabs
            // are trimmed: any other character is the token's own, and checked below.
            let fileTokens = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }
                .filter { !$0.isEmpty }
            guard !fileTokens.isEmpty else { throw ConfigurationError("publish.tokenFile \(tokenFile) holds no token") }
            for token in fileTokens { try BearerAuthenticator.validate(token, key: "publish.tokenFile \(tokenFile)") }
            tokens += fileTokens
        }
        let maxUpload = publish.int(forKey: "maxUploadBytes", default: Int(defaults.maxUploadBytes))
        guard maxUpload >= 1 else { throw ConfigurationError("publish.maxUploadBytes must be at least 1") }
        let keep = publish.int(forKey: "keepVersions", default: defaults.keepVersions)
        guard keep >= 1 else { throw ConfigurationError("publish.keepVersions must be at least 1") }
        let keepReleases = publish.int(forKey: "keepReleases", default: defaults.keepReleases)
        guard keepReleases >= 0 else { throw ConfigurationError("publish.keepReleases must not be negative") }
        let grace = publish.number(forKey: "retiredGraceSeconds", default: defaults.retiredGracePeriod / .seconds(1))
        let interval = publish.number(forKey: "collectionIntervalSeconds", default: defaults.collectionInterval / .seconds(1))
        let uploadLifetime = publish.number(forKey: "uploadLifetimeSeconds", default: defaults.uploadLifetime / .seconds(1))
        let maxCommit = publish.int(forKey: "maxCommitBytes", default: defaults.maxCommitBytes)
        let maxMissing = publish.int(forKey: "maxMissingHashes", default: defaults.maxMissingHashes)
        guard maxMissing >= 1 else { throw ConfigurationError("publish.maxMissingHashes must be at least 1") }
        let maxBatchBlobBytes = publish.int(forKey: "maxBatchBlobBytes", default: defaults.maxBatchBlobBytes)
        let maxBatchBlobs = publish.int(forKey: "maxBatchBlobs", default: defaults.maxBatchBlobs)
        let maxBatchBytes = publish.int(forKey: "maxBatchBytes", default: Int(defaults.maxBatchBytes))
        guard maxBatchBlobBytes >= 1, maxBatchBlobs >= 1, maxBatchBytes >= 1 else {
            throw ConfigurationError("publish.maxBatchBlobBytes, publish.maxBatchBlobs and publish.maxBatchBytes must be at least 1")
        }
        guard grace >= 0, interval > 0, uploadLifetime > 0, maxCommit >= 1024 else {
            throw ConfigurationError(
                "publish.retiredGraceSeconds must not be negative, publish.collectionIntervalSeconds and publish.uploadLifetimeSeconds "
                    + "must be positive, publish.maxCommitBytes at least 1024"
            )
        }
        self.init(
            tokens: tokens,
            maxUploadBytes: Int64(maxUpload),
            keepVersions: keep,
            keepReleases: keepReleases,
            retiredGracePeriod: .milliseconds(Int64(grace * 1000)),
            collectionInterval: .milliseconds(Int64(interval * 1000)),
            uploadLifetime: .milliseconds(Int64(uploadLifetime * 1000)),
            maxCommitBytes: maxCommit,
            maxMissingHashes: maxMissing,
            maxBatchBlobBytes: maxBatchBlobBytes,
            maxBatchBlobs: maxBatchBlobs,
            maxBatchBytes: Int64(maxBatchBytes),
            deltas: try DeltaConfiguration(reader: deltas)
        )
    }
}

extension DeltaConfiguration {
    /// Reads the `deltas.*` keys from the `deltas` scope (see ``ServerConfiguration/init(reader:)``).
    init(reader deltas: ConfigReader) throws {
        let defaults = Self()
        guard deltas.int(forKey: "previousVersions") == nil else {
            throw ConfigurationError("deltas.previousVersions was replaced by deltas.distances (for example [1, 2, 4]; [] makes no patch)")
        }
        self.init(
            distances: deltas.intArray(forKey: "distances", default: defaults.distances),
            onRequest: deltas.bool(forKey: "onRequest", default: defaults.onRequest),
            maximumPendingRequests: deltas.int(forKey: "maximumPendingRequests", default: defaults.maximumPendingRequests),
            blockSize: deltas.int(forKey: "blockSize", default: defaults.blockSize),
            blockIndexMinimumBytes: Int64(deltas.int(forKey: "blockIndexMinimumBytes", default: Int(defaults.blockIndexMinimumBytes))),
            patchMinimumBytes: Int64(deltas.int(forKey: "patchMinimumBytes", default: Int(defaults.patchMinimumBytes))),
            maximumRatio: deltas.number(forKey: "maximumRatio", default: defaults.maximumRatio),
            indexStep: deltas.int(forKey: "indexStep", default: defaults.indexStep),
            maximumSourceBytes: Int64(deltas.int(forKey: "maximumSourceBytes", default: Int(defaults.maximumSourceBytes))),
            packSections: deltas.bool(forKey: "packSections", default: defaults.packSections),
            maximumBaseTags: deltas.int(forKey: "maximumBaseTags", default: defaults.maximumBaseTags)
        )
        guard maximumBaseTags >= 1 else { throw ConfigurationError("deltas.maximumBaseTags must be at least 1") }
        guard distances.allSatisfy({ $0 >= 1 }), maximumRatio > 0, maximumRatio <= 1, (1...64).contains(indexStep) else {
            throw ConfigurationError(
                "deltas.distances must be at least 1 each, deltas.maximumRatio above 0 and at most 1, deltas.indexStep between 1 and 64"
            )
        }
        guard maximumPendingRequests >= 1, BlockIndex.blockSizes.contains(blockSize), blockSize.nonzeroBitCount == 1, blockIndexMinimumBytes >= 0,
            patchMinimumBytes >= 0
        else {
            throw ConfigurationError(
                "deltas.maximumPendingRequests must be at least 1, deltas.blockSize a power of two from "
                    + "\(BlockIndex.blockSizes.lowerBound) to \(BlockIndex.blockSizes.upperBound), "
                    + "deltas.blockIndexMinimumBytes not negative"
            )
        }
        guard (0...Int64(VCDIFFEncoder.maximumSourceSize)).contains(maximumSourceBytes) else {
            throw ConfigurationError("deltas.maximumSourceBytes must be between 0 and \(VCDIFFEncoder.maximumSourceSize)")
        }
    }
}
