/// One file of a release. Its bytes are at `/blobs/{sha256}`, its gzip, brotli and zstd variants
/// (when listed) at `/blobs/{sha256}.gz`, `.br` and `.zst`, and each patch at
/// `/deltas/{from}/{sha256}`.
///
/// A value type whose fields live in one shared box (copied on write), with digests held as
/// bytes (``CompactHex``): a sync may hold 100,000 entries, in its pages and its plan at once,
/// and a copy of an entry into a plan or a list costs a reference, not the entry.
public struct ReleaseEntry: Hashable, Sendable {
    private var box: Box

    public var path: String {
        get { box.fields.path }
        set { mutate { $0.path = newValue } }
    }
    /// The path's version number: each publish of new content adds one.
    public var version: Int64 {
        get { box.fields.version }
        set { mutate { $0.version = newValue } }
    }
    public var size: Int64 {
        get { box.fields.size }
        set { mutate { $0.size = newValue } }
    }
    /// Lower-case hex SHA-256 and MD5 of the content.
    public var sha256: String {
        get { box.fields.sha256.text }
        set { mutate { $0.sha256 = CompactHex(newValue) } }
    }
    public var md5: String {
        get { box.fields.md5.text }
        set { mutate { $0.md5 = CompactHex(newValue) } }
    }
    public var contentType: String {
        get { box.fields.contentType }
        set { mutate { $0.contentType = newValue } }
    }
    /// When this content was published (IMF-fixdate): the `Last-Modified` of `/files/{path}`.
    public var lastModified: String {
        get { box.fields.lastModified }
        set { mutate { $0.lastModified = newValue } }
    }
    public var gzip: Variant? {
        get { box.fields.gzip }
        set { mutate { $0.gzip = newValue } }
    }
    /// The brotli (RFC 7932) variant, when one smaller than the gzip variant and the content
    /// by the server's margin was made.
    public var brotli: Variant? {
        get { box.fields.brotli }
        set { mutate { $0.brotli = newValue } }
    }
    /// The zstd (RFC 8878) variant, kept by the same rule as ``brotli``.
    public var zstd: Variant? {
        get { box.fields.zstd }
        set { mutate { $0.zstd = newValue } }
    }
    /// Patches to this content from earlier contents of the path, when any is worth keeping.
    public var patches: [Patch]? {
        get { box.fields.patches }
        set { mutate { $0.patches = newValue } }
    }
    /// The block index of this content (`/blobs/{sha256}.blocks`: its size and SHA-256), when
    /// it is large enough to have one: a copy that is no published version fetches only the
    /// blocks it lacks, from `/blobs/{sha256}.zblocks`.
    public var blocks: Variant? {
        get { box.fields.blocks }
        set { mutate { $0.blocks = newValue } }
    }

    public init(
        path: String,
        version: Int64,
        size: Int64,
        sha256: String,
        md5: String,
        contentType: String,
        lastModified: String,
        gzip: Variant?,
        patches: [Patch]?,
        blocks: Variant? = nil,
        brotli: Variant? = nil,
        zstd: Variant? = nil
    ) {
        box = Box(
            Fields(
                path: path,
                version: version,
                size: size,
                sha256: CompactHex(sha256),
                md5: CompactHex(md5),
                contentType: contentType,
                lastModified: lastModified,
                gzip: gzip,
                patches: patches,
                blocks: blocks,
                brotli: brotli,
                zstd: zstd
            )
        )
    }

    /// ``sha256`` as bytes.
    public var digest: CompactHex { box.fields.sha256 }

    /// Whether `other` has this entry's content: the same SHA-256 and size, compared as bytes.
    public func hasContent(of other: ReleaseEntry) -> Bool {
        box.fields.sha256 == other.box.fields.sha256 && box.fields.size == other.box.fields.size
    }

    /// A stored form of the content: size and lower-case hex SHA-256 of its bytes.
    public struct Variant: Codable, Hashable, Sendable {
        public var size: Int64
        private var digest: CompactHex
        public var sha256: String {
            get { digest.text }
            set { digest = CompactHex(newValue) }
        }

        public init(size: Int64, sha256: String) {
            self.size = size
            self.digest = CompactHex(sha256)
        }

        private enum CodingKeys: String, CodingKey {
            case size
            case digest = "sha256"
        }
    }

    /// A gzip-compressed VCDIFF (RFC 3284) from the content `from` to this entry's.
    public struct Patch: Codable, Hashable, Sendable {
        /// Lower-case hex SHA-256 of the content the patch applies to.
        public var from: String {
            get { source.text }
            set { source = CompactHex(newValue) }
        }
        public var size: Int64
        /// Lower-case hex SHA-256 of the patch's bytes.
        public var sha256: String {
            get { digest.text }
            set { digest = CompactHex(newValue) }
        }
        private var source: CompactHex
        private var digest: CompactHex

        public init(from: String, size: Int64, sha256: String) {
            self.source = CompactHex(from)
            self.size = size
            self.digest = CompactHex(sha256)
        }

        private enum CodingKeys: String, CodingKey {
            case source = "from"
            case size
            case digest = "sha256"
        }
    }

    /// `/blobs/{sha256}.blocks`, when the entry lists a block index.
    public var blockIndexURL: String? { get throws(TreeObject.Problem) { blocks == nil ? nil : try TreeObject.blockIndex(of: sha256).url } }
    /// `/blobs/{sha256}.zblocks`: the blocks of the block index, each deflated on its own.
    public var packedBlocksURL: String { get throws(TreeObject.Problem) { try TreeObject.blockPack(of: sha256).url } }
    /// `/deltas/{from}/{sha256}`.
    public func patchURL(_ patch: Patch) throws(TreeObject.Problem) -> String { try TreeObject.delta(from: patch.from, to: sha256).url }
}

extension ReleaseEntry {
    /// The stored fields, as the JSON of a page has them.
    fileprivate struct Fields: Codable, Hashable, Sendable {
        var path: String
        var version: Int64
        var size: Int64
        var sha256: CompactHex
        var md5: CompactHex
        var contentType: String
        var lastModified: String
        var gzip: Variant?
        var patches: [Patch]?
        var blocks: Variant?
        var brotli: Variant?
        var zstd: Variant?
    }

    /// The shared box: never changed once shared (``mutate(_:)`` copies it first).
    fileprivate final class Box: @unchecked Sendable {
        var fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private mutating func mutate(_ change: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
        change(&box.fields)
    }

    public static func == (lhs: ReleaseEntry, rhs: ReleaseEntry) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    public func hash(into hasher: inout Hasher) {
        box.fields.hash(into: &hasher)
    }
}

extension ReleaseEntry: Codable {
    public init(from decoder: any Decoder) throws {
        box = Box(try Fields(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try box.fields.encode(to: encoder)
    }

    /// Shares one string among the entries that have equal ones, for fields most entries repeat
    /// (a page's content types, the publish time of its files): `seen` holds the strings kept.
    mutating func share(_ seen: inout Set<String>) {
        let (type, modified) = (seen.insert(contentType).memberAfterInsert, seen.insert(lastModified).memberAfterInsert)
        mutate {
            $0.contentType = type
            $0.lastModified = modified
        }
    }
}
