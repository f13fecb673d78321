/// The rules a logical path follows so that every client can write it as a file, on any file
/// system it syncs to: the one place the server (at publish) and the client (before it writes)
/// decide what a path may be and which paths are the same file.
///
/// - A path is kept in Unicode NFC: the server normalizes what publishers send, so `café` typed
///   on macOS (NFD) and on Linux (NFC) name one file.
/// - Two paths *collide* when their ``collisionKey(_:)`` (NFC, then lower-cased) is the same but
///   their bytes differ: on a case-insensitive volume (APFS, NTFS by default) they would be one
///   file, so the second is refused.
/// - A path and a folder of the same key cannot both be live (`a` beside `a/b`).
public enum PortablePath {
    /// The client's own folder inside a sync folder; no published path may start with it, in
    /// any letter case.
    public static let reservedFolder = ".depot"
    /// The longest segment (file or folder name) in bytes: `NAME_MAX` on Linux and macOS.
    public static let maxSegmentBytes = 255

    /// Why a path cannot be written by every client, or `nil` when it can. `path` is a
    /// `/`-separated relative path whose segments are already known to be non-empty and free of
    /// `.`/`..` and control characters (``RequestPath``).
    public static func problem(_ path: String) -> String? {
        let segments = self.segments(path)
        if let first = segments.first, first.lowercased() == reservedFolder {
            return "it is inside \(reservedFolder)/, which clients keep for themselves"
        }
        if let long = segments.first(where: { $0.utf8.count > maxSegmentBytes }) {
            return "its segment \(long.prefix(16))… is longer than \(maxSegmentBytes) bytes"
        }
        return nil
    }

    /// The segments of `path`, split at `/` scalars: a segment that starts with a combining mark
    /// makes one `Character` of the `/` before it, which a split by `Character` would miss.
    static func segments(_ path: String) -> [Substring] {
        path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// `path` in Unicode Normalization Form C.
    ///
    /// Uses the standard library's own NFC code units, the form Swift compares and hashes
    /// strings by; so two paths are equal `String`s exactly when their NFC forms are equal bytes,
    /// and a dictionary keyed by path never meets two keys it thinks equal.
    public static func normalized(_ path: String) -> String {
        String(decoding: path._nfcCodeUnits, as: UTF8.self)
    }

    /// The form under which two paths name one file on a normalization- and case-insensitive
    /// file system: NFC, lower-cased.
    public static func collisionKey(_ path: String) -> String {
        normalized(path).lowercased()
    }

    /// The folders that hold `path`, shallowest first: `a/b/c` → `a`, `a/b`. Each is a prefix
    /// of `path` that ends before one of its slashes, so empty segments stay as they are.
    public static func ancestors(_ path: String) -> [String] {
        let scalars = path.unicodeScalars
        return scalars.indices.filter { scalars[$0] == "/" }.map { String(scalars[..<$0]) }
    }

    /// The paths among `paths` that collide with one listed before them, or that are a file and
    /// a folder of another at once; each with the path it collides with. Order is kept: the first
    /// of two colliding paths is the one that stays.
    public static func collisions(in paths: [String]) -> [(path: String, with: String)] {
        var files: [String: String] = [:]
        var folders: [String: String] = [:]
        var result: [(path: String, with: String)] = []
        for path in paths {
            let key = collisionKey(path)
            let ancestors = ancestors(key)
            if let other = files[key] ?? folders[key] ?? ancestors.lazy.compactMap({ files[$0] }).first {
                result.append((path, other))
                continue
            }
            files[key] = path
            for folder in ancestors where folders[folder] == nil { folders[folder] = path }
        }
        return result
    }
}
