import DepotHTTP

extension ReleaseEntry {
    /// Whether a pack's download of the file is its gzip variant: when it has one smaller than
    /// the content (``download(decoding:)`` for a reader of gzip alone, which every client is).
    public var downloadsGzip: Bool { download(decoding: [.gzip]).coding == .gzip }

    /// The bytes of a pack's download of the file: the gzip variant when it is smaller.
    public var wholeLength: Int64 { download(decoding: [.gzip]).size }
}

extension ReleasePage {
    /// The largest download a page's pack holds: files this small cost more in a request of
    /// their own (a round trip, half a kilobyte of header fields) than in their bytes.
    public static let packMemberMaximumBytes: Int64 = 64 * 1024

    /// One file of a page's pack (`/packs/{page sha256}`).
    public struct PackMember: Sendable, Hashable {
        /// Its entry in the page.
        public var entry: ReleaseEntry
        /// Where its bytes start in the pack.
        public var offset: Int64
        /// Its bytes: ``ReleaseEntry/wholeLength``.
        public var length: Int64
        /// Whether they are the gzip variant (``ReleaseEntry/downloadsGzip``).
        public var isGzip: Bool

        /// The object the member's bytes are: the file, or its gzip variant.
        public var object: TreeObject { get throws(TreeObject.Problem) { isGzip ? try .gzip(of: entry.sha256) : try .blob(entry.sha256) } }
    }

    /// What the page's pack holds, in order: the whole download of each entry of at most
    /// ``packMemberMaximumBytes``, one after the other, nothing between. An empty file has no
    /// bytes to lay out, and is no member: no request is made for it. The pack is a function
    /// of the page alone, so it is as immutable as the page, and a client knows where each file
    /// lies in it, and can ask for a range, without any index. The one rule the server (which
    /// makes packs) and the client (which reads them) both follow.
    public var packMembers: [PackMember] {
        var members: [PackMember] = []
        var offset: Int64 = 0
        for entry in entries where entry.wholeLength > 0 && entry.wholeLength <= Self.packMemberMaximumBytes {
            members.append(PackMember(entry: entry, offset: offset, length: entry.wholeLength, isGzip: entry.downloadsGzip))
            offset += entry.wholeLength
        }
        return members
    }

    /// The page's pack: the bytes `read` gives for each of ``packMembers``, one after the other;
    /// `nil` when a member cannot be read or has not its length. How the server and
    /// `depot mirror` both make packs.
    public func pack(reading read: (PackMember) throws -> [UInt8]?) rethrows -> [UInt8]? {
        let members = packMembers
        var pack: [UInt8] = []
        pack.reserveCapacity(Int(members.last.map { $0.offset + $0.length } ?? 0))
        for member in members {
            guard let bytes = try read(member), Int64(bytes.count) == member.length else { return nil }
            pack += bytes
        }
        return pack
    }

    /// The contents of ``packMembers``, each file's own bytes (not its gzip variant), one after
    /// the other: what the page's brotli pack (`packs/{page}.br`) holds encoded as one stream.
    /// Small files compress far better together than one by one (a tree of small JSON files:
    /// 0.26× of their gzip variants' bytes, docs/performance.md), so a client that fetches a
    /// page's pack whole takes this. `nil` when a member cannot be read or has not its size.
    public func packContents(reading read: (ReleaseEntry) throws -> [UInt8]?) rethrows -> [UInt8]? {
        var contents: [UInt8] = []
        contents.reserveCapacity(Int(packContentsLength))
        for member in packMembers {
            guard let bytes = try read(member.entry), Int64(bytes.count) == member.entry.size else { return nil }
            contents += bytes
        }
        return contents
    }

    /// The length of ``packContents(reading:)``: what a brotli pack decodes to, at most.
    public var packContentsLength: Int64 { packMembers.reduce(0) { $0 + $1.entry.size } }
}
