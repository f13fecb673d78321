/// An object of the tree a Depot origin serves at its read URLs, which export folders, mirrors
/// and buckets hold at the same paths: the one owner of that layout.
///
/// | object | path |
/// |---|---|
/// | a channel document | `channels/{name}` (the default channel also at `manifest.json`) |
/// | a release document | `releases/{id}` |
/// | a page document | `pages/{sha256}` |
/// | a page's pack, and its brotli pack | `packs/{page}`, `packs/{page}.br` |
/// | a file | `blobs/{sha256}` |
/// | its gzip, brotli and zstd variants, block index, block pack | `blobs/{sha256}.gz`, `.br`, `.zst`, `.blocks`, `.zblocks` |
/// | a patch | `deltas/{from}/{to}` |
/// | a root | `roots/{version}.json` |
///
/// A value exists only for a well-formed name (a channel name by ``ChannelName``, a content
/// address by ``ContentAddress``, a root version from 1), so a name read from a document or a
/// request reaches a URL or a file system only through here, and only as one of these paths.
public struct TreeObject: Hashable, Sendable, CustomStringConvertible {
    /// What the object is.
    public enum Kind: Hashable, Sendable {
        case channel, manifest, release, page, pack, brotliPack, blob, gzip, brotli, zstd, blockIndex, blockPack, delta, root
    }

    public let kind: Kind
    /// The path below the tree's root, without a leading slash: `blobs/{sha256}.gz`.
    public let path: String
    /// The content address the object is named by: the release's id, the page's SHA-256 (for
    /// its pack too), the file's (for its variants too), a patch's target; `nil` for a channel
    /// document or a root.
    public let address: String?
    /// A patch's base.
    public let base: String?

    private init(_ kind: Kind, _ path: String, address: String? = nil, base: String? = nil) {
        self.kind = kind
        self.path = path
        self.address = address
        self.base = base
    }

    /// The URL path below the origin: `/` and ``path``.
    public var url: String { "/" + path }

    public var description: String { path }

    /// Objects are equal when their paths are: a path names one object, so a cache keyed by
    /// objects hashes one string.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.path == rhs.path }

    public func hash(into hasher: inout Hasher) { hasher.combine(path) }

    /// Why a name is not one of an object of the tree.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public let message: String
        public init(message: String) { self.message = message }
        public var description: String { message }
    }

    // MARK: - Objects

    /// `channels/{name}`.
    public static func channel(_ name: String) throws(Problem) -> Self {
        if let problem = ChannelName.problem(name) { throw Problem(message: "\(quoted(name)) is not a channel name: \(problem)") }
        return Self(.channel, "channels/" + name)
    }

    /// `manifest.json`: the default channel's document, where clients before channels look.
    public static let manifest = Self(.manifest, "manifest.json")

    /// `releases/{id}`.
    public static func release(_ id: String) throws(Problem) -> Self { try addressed(.release, "releases/", id, "", of: "a release") }

    /// The URL of the release `id` (``release(_:)``), as channel documents give it; empty when
    /// `id` is not a release id, which every client refuses.
    public static func url(ofRelease id: String) -> String { (try? release(id))?.url ?? "" }

    /// `pages/{sha256}`.
    public static func page(_ sha256: String) throws(Problem) -> Self { try addressed(.page, "pages/", sha256, "", of: "a page") }

    /// `packs/{page}`: the files of the page `page` packed in one download.
    public static func pack(ofPage page: String) throws(Problem) -> Self { try addressed(.pack, "packs/", page, "", of: "a page") }

    /// `packs/{page}.br`: the contents of the page's pack members, one brotli stream
    /// (``ReleasePage/packContents(reading:)``).
    public static func brotliPack(ofPage page: String) throws(Problem) -> Self { try addressed(.brotliPack, "packs/", page, ".br", of: "a page") }

    /// `blobs/{sha256}`.
    public static func blob(_ sha256: String) throws(Problem) -> Self { try addressed(.blob, "blobs/", sha256, "", of: "a file") }

    /// `blobs/{sha256}.gz`.
    public static func gzip(of sha256: String) throws(Problem) -> Self { try addressed(.gzip, "blobs/", sha256, ".gz", of: "a file") }

    /// `blobs/{sha256}.br`.
    public static func brotli(of sha256: String) throws(Problem) -> Self { try addressed(.brotli, "blobs/", sha256, ".br", of: "a file") }

    /// `blobs/{sha256}.zst`.
    public static func zstd(of sha256: String) throws(Problem) -> Self { try addressed(.zstd, "blobs/", sha256, ".zst", of: "a file") }

    /// `blobs/{sha256}.blocks`.
    public static func blockIndex(of sha256: String) throws(Problem) -> Self { try addressed(.blockIndex, "blobs/", sha256, ".blocks", of: "a file") }

    /// `blobs/{sha256}.zblocks`.
    public static func blockPack(of sha256: String) throws(Problem) -> Self { try addressed(.blockPack, "blobs/", sha256, ".zblocks", of: "a file") }

    /// `deltas/{from}/{to}`: the patch that makes the object `to` from the object `from`.
    public static func delta(from base: String, to target: String) throws(Problem) -> Self {
        let base = try address(base, of: "a patch's base")
        let target = try address(target, of: "a patch's target")
        return Self(.delta, "deltas/" + base + "/" + target, address: target, base: base)
    }

    private static func addressed(_ kind: Kind, _ folder: String, _ name: String, _ suffix: String, of what: String) throws(Problem) -> Self {
        Self(kind, folder + (try address(name, of: what)) + suffix, address: name)
    }

    /// `roots/{version}.json`.
    public static func root(_ version: Int64) throws(Problem) -> Self {
        guard version >= 1 else { throw Problem(message: "\(version) is not a root version") }
        return Self(.root, "roots/\(version).json")
    }

    // MARK: - Parsing

    /// The object at `path` (below the tree's root, without a leading slash); throws when
    /// `path` is not exactly one object's path.
    public init(path: String) throws(Problem) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let parsed: Self? =
            switch (parts.first, parts.count) {
            case ("manifest.json", 1): .manifest
            case ("channels", 2): try? .channel(parts[1])
            case ("releases", 2): try? .release(parts[1])
            case ("pages", 2): try? .page(parts[1])
            case ("packs", 2): parts[1].hasSuffix(".br") ? try? .brotliPack(ofPage: String(parts[1].dropLast(3))) : try? .pack(ofPage: parts[1])
            case ("deltas", 3): try? .delta(from: parts[1], to: parts[2])
            case ("blobs", 2): Self.blobObject(named: parts[1])
            case ("roots", 2):
                parts[1].hasSuffix(".json") && parts[1].utf8.count <= 24
                    ? Int64(parts[1].dropLast(5)).flatMap { try? .root($0) }.flatMap { $0.path == path ? $0 : nil } : nil
            default: nil
            }
        guard let parsed else { throw Problem(message: "\(Self.quoted(path)) is not the path of an object of the tree") }
        self = parsed
    }

    /// The object `name` (a route's parameter) names in the folder of `kind`: `/packs/:sha256`
    /// gets `{page}` or `{page}.br`. `nil` for a name no object of that folder has.
    public init?(in kind: Kind, named name: String) {
        guard let folder = kind.folder, let object = try? Self(path: folder + "/" + name) else { return nil }
        self = object
    }

    private static func blobObject(named name: String) -> Self? {
        let (base, suffix) = name.firstIndex(of: ".").map { (String(name[..<$0]), String(name[$0...])) } ?? (name, "")
        switch suffix {
        case "": return try? .blob(base)
        case ".gz": return try? .gzip(of: base)
        case ".br": return try? .brotli(of: base)
        case ".zst": return try? .zstd(of: base)
        case ".blocks": return try? .blockIndex(of: base)
        case ".zblocks": return try? .blockPack(of: base)
        default: return nil
        }
    }

    private static func address(_ name: String, of what: String) throws(Problem) -> String {
        guard ContentAddress.isSHA256(name) else { throw Problem(message: "\(quoted(name)) is not the name of \(what) (64 lower-case hex digits)") }
        return name
    }

    /// `name` for a message: quoted, cut short, control characters escaped.
    private static func quoted(_ name: String) -> String {
        let shown = name.unicodeScalars.prefix(80).map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }
        return "\"" + shown.joined() + (name.unicodeScalars.count > 80 ? "…" : "") + "\""
    }
}

extension TreeObject.Kind {
    /// The folder of the tree this kind of object lives in (`blobs` for a file and its
    /// variants); `nil` for `manifest.json`, at the root.
    public var folder: String? {
        switch self {
        case .channel: "channels"
        case .manifest: nil
        case .release: "releases"
        case .page: "pages"
        case .pack, .brotliPack: "packs"
        case .blob, .gzip, .brotli, .zstd, .blockIndex, .blockPack: "blobs"
        case .delta: "deltas"
        case .root: "roots"
        }
    }

    /// The route a server registers for this kind of object, its name a parameter:
    /// `/channels/:name`, `/releases/:id`, `/pages/:sha256`, `/packs/:sha256`, `/blobs/:name` (a
    /// file and its variants), `/deltas/:from/:to`, `/roots/:name`, `/manifest.json`. A handler
    /// makes the object back from the parameters (``TreeObject/init(path:)``).
    public var route: String {
        switch self {
        case .manifest: "/manifest.json"
        case .release: "/releases/:id"
        case .page, .pack, .brotliPack: "/\(folder!)/:sha256"
        case .delta: "/deltas/:from/:to"
        case .channel, .blob, .gzip, .brotli, .zstd, .blockIndex, .blockPack, .root: "/\(folder!)/:name"
        }
    }
}
