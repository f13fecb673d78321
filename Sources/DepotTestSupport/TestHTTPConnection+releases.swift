import Foundation

extension TestHTTPConnection where Self: ~Copyable {
    /// The entries of the release `channel` points to (as JSON objects, sorted by path), read as a
    /// client reads them: the channel document, the release document, then every page. Empty
    /// when the channel has no release.
    public mutating func releaseFiles(channel: String = "stable") async throws -> [[String: Any]] {
        let document = try await request("GET", "/channels/\(channel)", headers: [], body: nil)
        guard document.status == 200, let url = document.json["url"] as? String else { return [] }
        let pages = try await request("GET", url, headers: [], body: nil).json["pages"] as? [String] ?? []
        var entries: [[String: Any]] = []
        for page in pages {
            entries += try await request("GET", "/pages/\(page)", headers: [], body: nil).json["entries"] as? [[String: Any]] ?? []
        }
        return entries.sorted { ($0["path"] as? String ?? "") < ($1["path"] as? String ?? "") }
    }
}
