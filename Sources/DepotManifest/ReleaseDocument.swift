/// The root document of a release: which pages hold its files. Served at `/releases/{id}`, where
/// `id` is the lower-case hex SHA-256 of the document's bytes, so it never changes.
///
/// A release's files are split into `2^pageBits` pages by ``ReleasePaging``; a release that
/// changes k files re-encodes at most k pages, and shares every other page with its parent.
public struct ReleaseDocument: Codable, Hashable, Sendable {
    /// The layout of the document; this type reads and writes 1.
    public var format: Int
    /// Releases are numbered 1, 2, 3… in the order they were made, across channels.
    public var number: Int64
    /// The release this one was made from, or `nil` for the first one (or a `--replace`).
    public var parent: String?
    /// When it was made (IMF-fixdate).
    public var createdAt: String
    /// How many files, and their total size in bytes.
    public var files: Int64
    public var bytes: Int64
    /// How many bits of a path's bucket pick its page: there are `2^pageBits` pages.
    public var pageBits: Int
    /// The SHA-256 of each page's document, in page order: `/pages/{sha256}`.
    public var pages: [String]

    public static let currentFormat = 1

    /// For each page of this release that differs from the page at the same place in `earlier`
    /// (the parent, or the release a client holds), that page: the earlier version a patch of it
    /// is made from (`/deltas/{base}/{page}`). None when the releases are paged differently,
    /// whose pages hold other paths. The one rule for which page patches the server makes (from
    /// the parent) and a client asks for.
    public func pageBases(from earlier: ReleaseDocument?) -> [String: String] {
        guard let earlier, earlier.pages.count == pages.count else { return [:] }
        return Dictionary(zip(pages, earlier.pages).filter { $0 != $1 }) { first, _ in first }
    }

    public init(number: Int64, parent: String?, createdAt: String, files: Int64, bytes: Int64, pageBits: Int, pages: [String]) {
        self.format = Self.currentFormat
        self.number = number
        self.parent = parent
        self.createdAt = createdAt
        self.files = files
        self.bytes = bytes
        self.pageBits = pageBits
        self.pages = pages
    }
}

/// One page of a release: the entries whose path falls in it, sorted by path. Served at
/// `/pages/{sha256}`.
public struct ReleasePage: Codable, Hashable, Sendable {
    public var entries: [ReleaseEntry]

    public init(entries: [ReleaseEntry]) {
        self.entries = entries
    }
}

/// One file of a release. Its bytes are at `/blobs/{sha256}`, its gzip variant (when listed) at
/// `/blobs/{sha256}.gz`, and each patch at `/deltas/{from}/{sha256}`.
public struct ReleaseEntry: Codable, Hashable, Sendable {
    public var path: String
    /// The path's version number: each publish of new content adds one.
    public var version: Int64
    public var size: Int64
    /// Lower-case hex SHA-256 and MD5 of the content.
    public var sha256: String
    public var md5: String
    public var contentType: String
    /// When this content was published (IMF-fixdate): the `Last-Modified` of `/files/{path}`.
    public var lastModified: String
    public var gzip: Variant?
    /// Patches to this content from earlier contents of the path, when any is worth keeping.
    public var patches: [Patch]?
    /// The block index of this content (`/blobs/{sha256}.blocks`: its size and SHA-256), when
    /// it is large enough to have one: a copy that is no published version fetches only the
    /// blocks it lacks, from `/blobs/{sha256}.zblocks`.
    public var blocks: Variant?

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
        blocks: Variant? = nil
    ) {
        self.path = path
        self.version = version
        self.size = size
        self.sha256 = sha256
        self.md5 = md5
        self.contentType = contentType
        self.lastModified = lastModified
        self.gzip = gzip
        self.patches = patches
        self.blocks = blocks
    }

    /// A stored form of the content: size and lower-case hex SHA-256 of its bytes.
    public struct Variant: Codable, Hashable, Sendable {
        public var size: Int64
        public var sha256: String

        public init(size: Int64, sha256: String) {
            self.size = size
            self.sha256 = sha256
        }
    }

    /// A gzip-compressed VCDIFF (RFC 3284) from the content `from` to this entry's.
    public struct Patch: Codable, Hashable, Sendable {
        /// Lower-case hex SHA-256 of the content the patch applies to.
        public var from: String
        public var size: Int64
        /// Lower-case hex SHA-256 of the patch's bytes.
        public var sha256: String

        public init(from: String, size: Int64, sha256: String) {
            self.from = from
            self.size = size
            self.sha256 = sha256
        }
    }

    /// `/blobs/{sha256}` (``TreeObject/blob(_:)``).
    public var blobURL: String { get throws(TreeObject.Problem) { try TreeObject.blob(sha256).url } }
    /// `/blobs/{sha256}.gz`, when the entry lists a gzip variant.
    public var gzipURL: String? { get throws(TreeObject.Problem) { gzip == nil ? nil : try TreeObject.gzip(of: sha256).url } }
    /// `/blobs/{sha256}.blocks`, when the entry lists a block index.
    public var blockIndexURL: String? { get throws(TreeObject.Problem) { blocks == nil ? nil : try TreeObject.blockIndex(of: sha256).url } }
    /// `/blobs/{sha256}.zblocks`: the blocks of the block index, each deflated on its own.
    public var packedBlocksURL: String { get throws(TreeObject.Problem) { try TreeObject.blockPack(of: sha256).url } }
    /// `/deltas/{from}/{sha256}`.
    public func patchURL(_ patch: Patch) throws(TreeObject.Problem) -> String { try TreeObject.delta(from: patch.from, to: sha256).url }
}
