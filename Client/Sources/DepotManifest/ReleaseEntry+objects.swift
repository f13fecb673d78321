extension ReleaseEntry {
    /// An object of the tree an entry names below it, with what it must hold.
    public struct Object: Hashable, Sendable {
        public let object: TreeObject
        /// The SHA-256 and size the entry lists for it; `nil` for the block pack, which is
        /// checked block by block against the block index.
        public let sha256: String?
        public let size: Int64?
        /// Whether a tree that holds the entry must hold it: patches may be missing (a client
        /// then downloads more), nothing else may.
        public let required: Bool
    }

    /// Every object the entry names below it: its file, its gzip, brotli and zstd variants, its block index and
    /// block pack, and its patches. The one list the export, the mirror and the sweep share;
    /// throws when the entry gives a name no object has.
    public func objects() throws(TreeObject.Problem) -> [Object] {
        var objects = [Object(object: try .blob(sha256), sha256: sha256, size: size, required: true)]
        if let gzip { objects.append(Object(object: try .gzip(of: sha256), sha256: gzip.sha256, size: gzip.size, required: true)) }
        if let brotli { objects.append(Object(object: try .brotli(of: sha256), sha256: brotli.sha256, size: brotli.size, required: true)) }
        if let zstd { objects.append(Object(object: try .zstd(of: sha256), sha256: zstd.sha256, size: zstd.size, required: true)) }
        if let blocks {
            objects.append(Object(object: try .blockIndex(of: sha256), sha256: blocks.sha256, size: blocks.size, required: true))
            objects.append(Object(object: try .blockPack(of: sha256), sha256: nil, size: nil, required: true))
        }
        for patch in patches ?? [] {
            objects.append(Object(object: try .delta(from: patch.from, to: sha256), sha256: patch.sha256, size: patch.size, required: false))
        }
        return objects
    }
}
