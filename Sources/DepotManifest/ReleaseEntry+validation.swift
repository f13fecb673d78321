extension ReleaseEntry {
    /// The first field a client must not use as it is, or `nil` when every field is usable: a
    /// SHA-256 that is not 64 lower-case hex digits or an MD5 not 32 (they become file and URL
    /// names), or a negative size.
    public var problem: String? {
        let fields: [(String, String, Int)] =
            [("sha256", sha256, 64), ("md5", md5, 32)] + (gzip.map { [("gzip sha256", $0.sha256, 64)] } ?? [])
            + (blocks.map { [("block index sha256", $0.sha256, 64)] } ?? [])
            + (patches ?? []).flatMap { [("patch from", $0.from, 64), ("patch sha256", $0.sha256, 64)] }
        for (name, value, length) in fields where !ContentAddress.isLowercaseHex(value, length: length) {
            return "the \(name) of \(path) is not \(length) lower-case hex digits"
        }
        let sizes = [size, gzip?.size ?? 0, blocks?.size ?? 0] + (patches ?? []).map(\.size)
        if sizes.contains(where: { $0 < 0 }) { return "\(path) has a negative size" }
        return nil
    }
}
