extension Manifest {
    /// The first field a client must not use as it is, or `nil` when every field is usable:
    /// a SHA-256 that is not 64 lower-case hex digits or an MD5 not 32 (they become file names),
    /// a negative size, or a URL that is not a path on the server (`/…`, not `//…`).
    public var problem: String? {
        for entry in files {
            let fields: [(String, String, Int)] =
                [("sha256", entry.sha256, 64), ("md5", entry.md5, 32)] + (entry.gzip.map { [("gzip sha256", $0.sha256, 64)] } ?? [])
                + (entry.deltas ?? []).flatMap { [("delta from", $0.from, 64), ("delta sha256", $0.sha256, 64)] }
            for (name, value, length) in fields where !Self.isLowercaseHex(value, length: length) {
                return "the \(name) of \(entry.path) is not \(length) lower-case hex digits"
            }
            let sizes = [entry.size, entry.gzip?.size ?? 0] + (entry.deltas ?? []).map(\.size)
            if sizes.contains(where: { $0 < 0 }) { return "\(entry.path) has a negative size" }
            let urls = [entry.blob] + (entry.gzip.map { [$0.url] } ?? []) + (entry.deltas ?? []).map(\.url)
            if let url = urls.first(where: { !Self.isServerPath($0) }) {
                return "the URL \(url) of \(entry.path) is not a path on this server"
            }
        }
        return nil
    }

    static func isLowercaseHex(_ value: String, length: Int) -> Bool {
        value.utf8.count == length
            && value.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// `/…` but not `//…` (a network-path reference names another host).
    static func isServerPath(_ url: String) -> Bool {
        url.hasPrefix("/") && !url.hasPrefix("//") && !url.contains("\\")
    }
}
