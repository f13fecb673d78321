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

    /// Decodes the entries, each content type and publish time held once for the page.
    public init(from decoder: any Decoder) throws {
        entries = try decoder.container(keyedBy: CodingKeys.self).decode([ReleaseEntry].self, forKey: .entries)
        var seen = Set<String>()
        for index in entries.indices { entries[index].share(&seen) }
    }
}
