import DepotCodecs
import DepotManifest

/// A page's brotli pack (`packs/{page}.br`): ``DepotManifest/ReleasePage/packContents(reading:)``
/// as one brotli stream, where that is smaller than the page's pack. The one way the server (on
/// request), `depot export` and `depot mirror` make it.
public enum BrotliPack {
    /// The settings packs are encoded with: quality 5, a 4 MiB window. Made when first asked (an
    /// origin) or at each export, so quick: tens of MB a second, and 0.33× of the members' gzip
    /// bytes on a tree of small JSON files against 0.26× at quality 11 (docs/performance.md).
    public static let settings = Brotli.Settings(quality: 5, window: 22)

    /// The share of the page's pack a brotli pack must save to be made: a client that fetches
    /// it instead fetches nothing else.
    public static let minimumSavings = 0.03

    /// A member of the page that `read` could not give.
    public struct MissingMember: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "the file \(path) of the page is missing" }
    }

    /// The brotli pack of `page`, its members' contents given by `read`; `nil` when the page
    /// has no pack or the brotli pack would not save ``minimumSavings`` of it (incompressible
    /// files), so that none is served.
    ///
    /// - Throws: ``MissingMember`` when `read` gives no bytes, or not the entry's size, for a
    ///   member.
    public static func encode(_ page: ReleasePage, reading read: (ReleaseEntry) throws -> [UInt8]?) throws -> [UInt8]? {
        let members = page.packMembers
        guard let last = members.last else { return nil }
        var missing: String?
        let contents = try page.packContents { entry in
            let bytes = try read(entry)
            if bytes == nil { missing = entry.path }
            return bytes
        }
        guard let contents else { throw MissingMember(path: missing ?? "?") }
        let encoded = try Brotli.compress(contents, settings: settings)
        return Double(encoded.count) <= Double(last.offset + last.length) * (1 - minimumSavings) ? encoded : nil
    }
}
