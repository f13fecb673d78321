import DepotHTTP
import DepotManifest

/// What an import takes from a tree, beyond what a client checks: the values a publish would
/// have made (numbers an origin can count on from, paths a publish accepts), so that a hostile
/// or broken tree cannot give the rebuilt origin one it cannot go on from.
enum ImportLimits {
    /// The largest number, version, serial or count taken: 2^53, far beyond any origin's, with
    /// room to count on.
    static let largest: Int64 = 1 << 53
    /// The longest path taken, in bytes: four times a publish's default limit
    /// (`publish.maxPathLength`, 1024), since the origin the tree came from may have raised it.
    static let maximumPathBytes = 4096

    static func problem(of document: ReleaseDocument) -> String? {
        guard (1...largest).contains(document.number) else { return "its number \(document.number) is out of range" }
        guard document.files <= largest, document.bytes <= largest else { return "it counts more files or bytes than any origin" }
        guard HTTPDate(parsing: document.createdAt, now: HTTPDate(secondsSince1970: 0)) != nil else { return "its date does not parse" }
        return nil
    }

    /// Why a release with these entries could not have been published, or `nil`: an entry a
    /// client refuses, a path a publish refuses, a path listed twice or colliding with another,
    /// a version out of range, a content type with a control character, a date that does not
    /// parse.
    static func problem(of entries: [ReleaseEntry]) -> String? {
        var paths = Set<String>()
        for entry in entries {
            if let problem = entry.problem { return problem }
            if let problem = PublishedPath.problem(entry.path, maxLength: maximumPathBytes) { return "\(entry.path.debugDescription): \(problem)" }
            guard paths.insert(entry.path).inserted else { return "\(entry.path) is listed twice" }
            guard (1...largest).contains(entry.version) else { return "\(entry.path) has version \(entry.version)" }
            guard entry.contentType.utf8.count <= 255, !entry.contentType.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else { return "\(entry.path) has a content type with a control character" }
            guard HTTPDate(parsing: entry.lastModified, now: HTTPDate(secondsSince1970: 0)) != nil else {
                return "\(entry.path)'s date does not parse"
            }
        }
        if let (path, other) = PortablePath.collisions(in: Array(paths)).first { return "\(path) collides with \(other)" }
        return nil
    }
}
