import DepotHTTP
import DepotManifest
import NIOCore

/// The resources of published content that requests asked for lately: a bounded map from what
/// a URL names to its ``Resource``, so that repeated requests (and ``DirectResponder``) never
/// query the catalog, while memory stays the same for 1,000 files as for 100,000.
///
/// Two generations, as in a segmented LRU: entries go into `recent`; when `recent` holds half
/// the entries or half the bytes allowed, it becomes `older` and the old `older` is dropped. A
/// hit in `older` moves the entry back to `recent`. Every operation is O(1), and what a burst of
/// one-off requests pushes out is at most the colder half.
///
/// Changes of the catalog remove the keys they touch and advance ``generation``; a lookup that
/// read the catalog before such a change inserts nothing (``insert(_:for:readAt:)``), so a
/// resource read from an older catalog never outlives the change that made it stale.
struct ResourceCache {
    /// What a URL of published content names.
    enum Key: Hashable {
        /// `/files/{path}`: the live file at `path`, or the digest sidecar `path` names.
        case file(String)
        /// An object of the tree: a blob, its variants, block index and block pack, a patch, a
        /// page's packs.
        case object(TreeObject)
    }

    /// A cached resource, with what it holds in memory.
    struct Entry {
        let resource: Resource
        /// Bytes of its variants held in memory.
        let heldBytes: Int
        /// For a patch: what it saves against the full download of its target.
        let saving: Int64

        init(_ resource: Resource, saving: Int64 = 0) {
            self.resource = resource
            self.saving = saving
            var held = 0
            for variant in [resource.identity] + resource.encoded.values {
                if case .bytes(let bytes) = variant.storage { held += bytes.readableBytes }
            }
            self.heldBytes = held
        }
    }

    private struct Generation {
        var entries: [Key: Entry] = [:]
        var bytes = 0
    }

    let maximumEntries: Int
    let maximumBytes: Int
    private var recent = Generation()
    private var older = Generation()
    /// Advanced by every removal: what a lookup reads before it asks the catalog.
    private(set) var generation: UInt64 = 0

    init(maximumEntries: Int, maximumBytes: Int) {
        self.maximumEntries = max(2, maximumEntries)
        self.maximumBytes = max(0, maximumBytes)
    }

    var count: Int { recent.entries.count + older.entries.count }

    /// The entry for `key`, if cached.
    mutating func entry(for key: Key) -> Entry? {
        if let entry = recent.entries[key] { return entry }
        guard let entry = older.entries.removeValue(forKey: key) else { return nil }
        older.bytes -= entry.heldBytes
        add(entry, for: key)
        return entry
    }

    /// Caches `entry` for `key`, unless the cache changed since `generation` was read: then the
    /// entry may have been read from a catalog older than that change.
    mutating func insert(_ entry: Entry, for key: Key, readAt generation: UInt64) {
        guard generation == self.generation, recent.entries[key] == nil else { return }
        if let stale = older.entries.removeValue(forKey: key) { older.bytes -= stale.heldBytes }
        add(entry, for: key)
    }

    /// Removes `keys`: what a change of the catalog made stale.
    mutating func remove(_ keys: some Sequence<Key>) {
        generation &+= 1
        for key in keys {
            if let entry = recent.entries.removeValue(forKey: key) { recent.bytes -= entry.heldBytes }
            if let entry = older.entries.removeValue(forKey: key) { older.bytes -= entry.heldBytes }
        }
    }

    /// Removes every entry `isStale` picks.
    mutating func removeAll(where isStale: (Key) -> Bool) {
        remove(Array(recent.entries.keys.filter(isStale)) + older.entries.keys.filter(isStale))
    }

    private mutating func add(_ entry: Entry, for key: Key) {
        if recent.entries.count + 1 > maximumEntries / 2 || recent.bytes + entry.heldBytes > maximumBytes / 2 {
            older = recent
            recent = Generation()
        }
        recent.entries[key] = entry
        recent.bytes += entry.heldBytes
    }
}
