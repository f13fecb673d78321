import DepotHTTP
import DepotManifest

/// The one rule for the path of a published file, given as text (a commit's JSON, a release an
/// import reads): a plain relative path, no traversal, empty or dot segment, control character
/// or trailing slash, in Unicode NFC, at most `maxLength` bytes, and one every client can write
/// (``PortablePath/problem(_:)``). The publisher's API and `depot import` both ask it.
public enum PublishedPath {
    /// Why `path` is no published file's path, or `nil` when it is one. `normalizing` takes a
    /// path not in NFC as its NFC form (a publish does); otherwise it is refused (a release that
    /// names one was not made by this rule).
    public static func problem(_ path: String, maxLength: Int, normalizing: Bool = false) -> String? {
        let decoded: RequestPath
        do {
            decoded = try RequestPath(decoding: "/" + RequestPath.encode(path))
        } catch {
            return "the path is not acceptable: \(error.explanation)"
        }
        guard !decoded.segments.isEmpty, !decoded.hasTrailingSlash else { return "the path must name a file, not a folder" }
        let normalized = PortablePath.normalized(decoded.relativePath)
        // By scalars: `String` equality holds between a path and its NFC form.
        guard normalizing || normalized.unicodeScalars.elementsEqual(path.unicodeScalars) else { return "the path is not in Unicode NFC" }
        guard normalized.utf8.count <= maxLength else { return "the path is longer than \(maxLength) bytes" }
        if let problem = PortablePath.problem(normalized) { return "the path cannot be written by every client: \(problem)" }
        return nil
    }
}
