public import DepotHTTP

extension ReleaseEntry {
    /// A file's whole download in one content coding: the object to fetch and what it must hold.
    public struct Download: Sendable, Hashable {
        public let coding: ContentCoding
        /// The bytes of the download: the variant's, or the content's for `identity`.
        public let size: Int64
        /// The SHA-256 of those bytes.
        public let sha256: String
        /// The SHA-256 of the content they decode to.
        public let content: String

        public init(coding: ContentCoding, size: Int64, sha256: String, content: String) {
            self.coding = coding
            self.size = size
            self.sha256 = sha256
            self.content = content
        }

        /// `blobs/{content}` or its variant: `.gz`, `.zst`, `.br`.
        public var object: TreeObject {
            get throws(TreeObject.Problem) {
                switch coding {
                case .identity: try .blob(content)
                case .gzip: try .gzip(of: content)
                case .zstd: try .zstd(of: content)
                case .br: try .brotli(of: content)
                }
            }
        }
    }

    /// The variant the entry lists in `coding`; the content itself for `identity`.
    public func variant(_ coding: ContentCoding) -> Variant? {
        switch coding {
        case .identity: Variant(size: size, sha256: sha256)
        case .gzip: gzip
        case .zstd: zstd
        case .br: brotli
        }
    }

    /// The whole download a client that decodes `decodable` takes: the smallest variant it
    /// decodes that is smaller than the content, else the content; of equal sizes, the first
    /// in ``ContentCoding/precompressed``, as the server's negotiation. The one rule of a
    /// whole file's download: a client's plan (and so `ReleasePlan`'s choice among patches,
    /// blocks and the whole file) and a pack's members (gzip alone) both take it from here.
    public func download(decoding decodable: Set<ContentCoding>) -> Download {
        var best = (coding: ContentCoding.identity, variant: Variant(size: size, sha256: sha256))
        for coding in ContentCoding.precompressed where decodable.contains(coding) {
            if let variant = variant(coding), variant.size < best.variant.size { best = (coding, variant) }
        }
        return Download(coding: best.coding, size: best.variant.size, sha256: best.variant.sha256, content: sha256)
    }
}
