import DepotHTTP
import DepotManifest

/// What a sync does to go from one release to another, decided from their documents alone:
/// which pages to compare, which files to fetch (and from which patch), which to remove, and
/// the renames of the switch. Pure, so it is tested as a table.
public struct ReleasePlan: Equatable, Sendable {
    /// A file to fetch: its new entry, and the entry the folder holds for its path, if any.
    public struct Fetch: Equatable, Sendable {
        public let entry: ReleaseEntry
        public let held: ReleaseEntry?

        public init(entry: ReleaseEntry, held: ReleaseEntry?) {
            self.entry = entry
            self.held = held
        }

        /// The listed patch from the content held, if any.
        public var patch: ReleaseEntry.Patch? {
            held.flatMap { held in entry.patches?.first { $0.from == held.sha256 } }
        }

        /// What the folder holds at the entry's path.
        public enum LocalCopy: Equatable, Sendable {
            /// No file.
            case none
            /// The content the release held lists (its SHA-256 checked).
            case held
            /// Some other bytes: the app wrote to the file, or it was damaged, or the release held
            /// listed no file there.
            case other
        }

        /// A way to fetch a file into staging.
        public enum Action: Equatable, Sendable {
            /// Staged intact by a sync that stopped before its switch: nothing to fetch.
            case alreadyStaged
            /// Written empty: a file of no bytes needs no request (its SHA-256 is checked all the
            /// same).
            case empty
            /// Made from the held file by this patch, listed by the release.
            case patch(ReleaseEntry.Patch)
            /// Made from the held file by the patch the server makes when asked
            /// (`/deltas/{held}/{new}`): for a file more releases behind than the listed patches
            /// reach.
            case requestedPatch
            /// Rebuilt from the blocks of the local copy and the blocks it lacks: of the content held
            /// and then made new by `restoring`, its listed patch (the app's changes to its copy
            /// are fewer than a release's and the patch small); or, nil, of the new content.
            case blocks(restoring: ReleaseEntry.Patch?)
            /// Downloaded whole into memory, then written: no partial file, which a download
            /// this small would not resume anyway.
            case download(ReleaseEntry.Download)
            /// Downloaded to a partial file, resumed (`Range` + `If-Range`) from what an earlier
            /// sync left there.
            case stream(ReleaseEntry.Download)
        }

        /// The ways to fetch this file, best first, from what the folder holds: whether a staged
        /// copy is intact, and the local copy. Each way but the last may fail or find itself not
        /// worth its bytes (``BlockFetch/NotWorthIt``), and the next is tried; the last, the
        /// whole file, always works: the smallest variant a client that decodes `decodable`
        /// can take (``ReleaseEntry/download(decoding:)``); a file goes through memory only when
        /// both its download and the file it decodes to are at most `inMemoryLimit` bytes: the
        /// decoded size decides, so a tiny brotli variant of a file of many megabytes (zeros)
        /// streams to disk, never decoded into one buffer.
        public func actions(stagedIntact: Bool, local: LocalCopy, inMemoryLimit: Int64, decoding decodable: Set<ContentCoding>) -> [Action] {
            if stagedIntact { return [.alreadyStaged] }
            if entry.size == 0 { return [.empty] }
            var actions: [Action] = []
            switch local {
            case .held:
                // A release that lists patches to this content from other versions only: the
                // held one is further back, and the server makes its patch when asked. One that
                // lists none found no patch worth keeping even from the nearest versions.
                if let patch {
                    actions.append(.patch(patch))
                } else if held != nil, entry.patches?.isEmpty == false {
                    actions.append(.requestedPatch)
                }
                if entry.blocks != nil { actions.append(.blocks(restoring: nil)) }
            case .other:
                if let patch, held?.blocks != nil { actions.append(.blocks(restoring: patch)) }
                if entry.blocks != nil { actions.append(.blocks(restoring: nil)) }
            case .none:
                break
            }
            let whole = entry.download(decoding: decodable)
            let inMemory = whole.size <= inMemoryLimit && entry.size <= inMemoryLimit
            return actions + [inMemory ? .download(whole) : .stream(whole)]
        }
    }

    public var fetches: [Fetch] = []
    public var removals: [ReleaseEntry] = []

    /// The pages to compare: those whose hash differs at the same index, or every page when the
    /// two releases are paged differently (or there is no release before).
    public static func changedPages(from before: ReleaseDocument?, to after: ReleaseDocument) -> (before: [String], after: [String]) {
        guard let before else { return ([], after.pages) }
        guard before.pages.count == after.pages.count else { return (before.pages, after.pages) }
        let differing = zip(before.pages, after.pages).filter { $0 != $1 }
        return (differing.map(\.0), differing.map(\.1))
    }

    /// Compares the entries of the changed pages.
    ///
    /// - Throws: ``PolicyError`` `.corrupt` when two paths of the new release would be one file on
    ///   a case- or normalization-insensitive file system; such paths share a page, so the
    ///   changed pages are enough to find them.
    public init(before: [ReleasePage], after: [ReleasePage], removesDeletedFiles: Bool) throws(PolicyError) {
        var held = Self.held(in: before)
        try self.init(held: &held, after: after)
        if removesDeletedFiles { removals = Self.removals(left: held) }
    }

    /// The fetches of some of the changed pages of the new release, `after`, against the entries
    /// held (``held(in:)``), from which it takes those it meets: what is left once every page
    /// was compared goes (``removals(left:)``). A plan a few pages at a time, without the others'
    /// entries; no removals.
    ///
    /// - Throws: ``PolicyError`` `.corrupt`, as ``init(before:after:removesDeletedFiles:)``.
    public init(held: inout [String: ReleaseEntry], after: [ReleasePage]) throws(PolicyError) {
        let entries = after.flatMap(\.entries)
        if let collision = PortablePath.collisions(in: entries.map(\.path)).first {
            throw PolicyError(.corrupt, "the release lists \(collision.path) beside \(collision.with): one file on some file systems")
        }
        for entry in entries {
            let previous = held.removeValue(forKey: entry.path)
            if Self.fetches(entry, held: previous) { fetches.append(Fetch(entry: entry, held: previous)) }
        }
        fetches.sort { $0.entry.path < $1.entry.path }
    }

    /// Whether `entry` is fetched when the folder holds `held` at its path: unless it holds
    /// the same content.
    public static func fetches(_ entry: ReleaseEntry, held: ReleaseEntry?) -> Bool {
        held.map(entry.hasContent(of:)) != true
    }

    /// The entries of the changed pages of the release held, by path.
    public static func held(in before: [ReleasePage]) -> [String: ReleaseEntry] {
        var held: [String: ReleaseEntry] = [:]
        for page in before { for entry in page.entries { held[entry.path] = entry } }
        return held
    }

    /// The files the new release no longer lists: the entries held that no changed page took.
    public static func removals(left held: [String: ReleaseEntry]) -> [ReleaseEntry] {
        held.values.sorted { $0.path < $1.path }
    }
}
