extension ReleaseEntry {
    /// The first field a client must not use as it is, or `nil` when every field is usable: a
    /// SHA-256 that is not 64 lower-case hex digits or an MD5 not 32 (they become file and URL
    /// names), or a negative size.
    public var problem: String? {
        let variants: [(String, Variant?)] = [("gzip", gzip), ("brotli", brotli), ("zstd", zstd), ("block index", blocks)]
        var fields: [(String, String, Int)] = [("sha256", sha256, 64), ("md5", md5, 32)]
        for case (let name, let variant?) in variants { fields.append(("\(name) sha256", variant.sha256, 64)) }
        for patch in patches ?? [] { fields += [("patch from", patch.from, 64), ("patch sha256", patch.sha256, 64)] }
        for (name, value, length) in fields where !ContentAddress.isLowercaseHex(value, length: length) {
            return "the \(name) of \(path) is not \(length) lower-case hex digits"
        }
        let sizes = [size] + variants.compactMap { $0.1?.size } + (patches ?? []).map(\.size)
        if sizes.contains(where: { $0 < 0 }) { return "\(path) has a negative size" }
        return nil
    }
}

extension ReleasePage {
    /// The first entry a client, an export or a mirror must not use as it is, told as
    /// ``ReleaseEntry/problem``; `nil` when every entry is usable.
    public var problem: String? {
        entries.lazy.compactMap(\.problem).first
    }
}

extension ReleaseDocument {
    /// Why this document is not a release whose pages can be fetched (a format this code does
    /// not read, a page count its paging does not give, a page or parent that is not a content
    /// address), or `nil` when it is one.
    public var problem: String? {
        guard format == Self.currentFormat else { return "its format \(format) is not \(Self.currentFormat)" }
        guard (0...ReleasePaging.maximumBits).contains(pageBits), pages.count == 1 << pageBits else {
            return "it lists \(pages.count) pages for \(pageBits) bits of paging"
        }
        guard pages.allSatisfy(ContentAddress.isSHA256) else { return "a page is not named by a SHA-256" }
        if let parent, !ContentAddress.isSHA256(parent) { return "its parent is not named by a SHA-256" }
        guard files >= 0, bytes >= 0 else { return "it counts a negative number of files or bytes" }
        return nil
    }
}
