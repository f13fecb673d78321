import DepotAPI
import DepotHTTP
import DepotManifest
import DepotStore
import Hummingbird

/// The logical path of a published file, taken from a request path after a route prefix.
enum LogicalPath {
    /// Decodes and checks the part of `rawPath` after `prefix`, and returns it in Unicode NFC;
    /// throws 400 for anything that is not a plain relative path of at most `maxLength` bytes
    /// (traversal, empty or dot segments, control characters, a trailing slash) or that some
    /// client could not write (``PortablePath/problem(_:)``).
    static func parse(_ rawPath: String, prefix: String, maxLength: Int) throws -> String {
        guard rawPath.hasPrefix(prefix + "/") else { throw HTTPError(.badRequest, message: "The path is missing") }
        let decoded: RequestPath
        do {
            decoded = try RequestPath(decoding: rawPath.dropFirst(prefix.count))
        } catch {
            throw HTTPError(.badRequest, message: "The path is not acceptable: \(error.explanation)")
        }
        guard !decoded.segments.isEmpty, !decoded.hasTrailingSlash else {
            throw HTTPError(.badRequest, message: "The path must name a file, not a folder")
        }
        let path = PortablePath.normalized(decoded.relativePath)
        // The rule an import applies to the paths it reads, too.
        if let problem = PublishedPath.problem(path, maxLength: maxLength) {
            throw HTTPError(.badRequest, message: problem.prefix(1).uppercased() + problem.dropFirst())
        }
        return path
    }
}

extension LogicalPath {
    /// Checks a path given as text (in a release commit's JSON) by the rules of
    /// ``parse(_:prefix:maxLength:)``, and returns it in NFC; throws ``PublisherError``
    /// (`invalid`) naming the path as the audit trail quotes request text (``DepotAPI/AuditText``):
    /// cut, its control characters escaped, so a refusal stays one short line.
    static func check(_ path: String, maxLength: Int) throws(PublisherError) -> String {
        do {
            return try parse("/" + RequestPath.encode(path), prefix: "", maxLength: maxLength)
        } catch {
            let shown = AuditText.escaped(path, limit: 200) + (path.unicodeScalars.count > 200 ? "…" : "")
            throw PublisherError(.invalid, "\(shown): \((error as? HTTPError)?.body ?? "not acceptable")")
        }
    }
}
