import DepotHTTP
import DepotManifest
import NIOCore
import Testing
import _NIOFileSystem

@testable import DepotServer

/// ``ResourceCache`` keeps what requests read from the catalog: bounded in entries and in bytes
/// held, and never keeping what a lookup read before a change made it stale.
@Suite("Resource cache")
struct ResourceCacheTests {
    static func resource(_ text: String, inMemory: Bool = false) -> Resource {
        let bytes = Array(text.utf8)
        let sha256 = String(repeating: "0", count: 63) + "1"
        return Resource(
            identity: .init(
                storage: inMemory ? .bytes(ByteBuffer(bytes: bytes)) : .file(FilePath("/nowhere/\(text)")),
                length: Int64(bytes.count),
                sha256: sha256
            ),
            contentType: "text/plain",
            lastModified: HTTPDate(secondsSince1970: 0),
            lastModifiedIsStrong: true,
            cacheControl: nil
        )
    }

    /// One step of a table: an operation and the keys cached after it.
    enum Step {
        case insert(String, bytes: Int = 0)
        /// An insert of what a lookup read before the last removal.
        case staleInsert(String)
        case lookUp(String)
        case remove([String])
    }

    static let tables: [(name: String, entries: Int, bytes: Int, steps: [Step], cached: Set<String>)] = [
        ("inserts are kept", 8, 0, [.insert("a"), .insert("b")], ["a", "b"]),
        ("a removal drops exactly its keys", 8, 0, [.insert("a"), .insert("b"), .remove(["a", "x"])], ["b"]),
        ("an insert read before a removal is not kept", 8, 0, [.insert("a"), .remove(["a"]), .staleInsert("a")], []),
        ("an insert read after a removal is kept", 8, 0, [.remove(["a"]), .insert("a")], ["a"]),
        (
            "beyond half the entries, the recent half ages and the older half goes", 4, 0,
            [.insert("a"), .insert("b"), .insert("c"), .insert("d"), .insert("e")], ["c", "d", "e"]
        ),
        (
            "a hit in the older half brings the entry back", 4, 0,
            [.insert("a"), .insert("b"), .insert("c"), .lookUp("a"), .insert("d"), .insert("e")], ["a", "c", "d", "e"]
        ),
        ("within half the bytes, all is kept", 100, 20, [.insert("a", bytes: 4), .insert("b", bytes: 4), .insert("c", bytes: 4)], ["a", "b", "c"]),
        (
            "past half the bytes, the recent half ages", 100, 20, [.insert("a", bytes: 6), .insert("b", bytes: 6), .insert("c", bytes: 6)],
            ["b", "c"]
        ),
    ]

    @Test("what stays cached", arguments: tables.indices)
    func table(_ index: Int) {
        let row = Self.tables[index]
        var cache = ResourceCache(maximumEntries: row.entries, maximumBytes: row.bytes)
        var generation = cache.generation
        for step in row.steps {
            switch step {
            case .insert(let key, let bytes):
                let text = String(repeating: key, count: max(1, bytes))
                cache.insert(.init(Self.resource(text, inMemory: bytes > 0)), for: .file(key), readAt: cache.generation)
            case .staleInsert(let key):
                cache.insert(.init(Self.resource(key)), for: .file(key), readAt: generation)
            case .lookUp(let key):
                _ = cache.entry(for: .file(key))
            case .remove(let keys):
                generation = cache.generation
                cache.remove(keys.map { .file($0) })
            }
        }
        // Each look on a copy: a lookup moves what it finds.
        let cached = Set(
            ["a", "b", "c", "d", "e"].filter { key in
                var copy = cache
                return copy.entry(for: .file(key)) != nil
            }
        )
        #expect(cached == row.cached, "\(row.name)")
    }

    @Test("removeAll(where:) drops the kinds it names, and keys are kinds apart")
    func kinds() throws {
        var cache = ResourceCache(maximumEntries: 16, maximumBytes: 0)
        let sha = String(repeating: "a", count: 64)
        for key in [ResourceCache.Key.file(sha), .object(try .blob(sha)), .object(try .gzip(of: sha)), .object(try .delta(from: sha, to: sha))] {
            cache.insert(.init(Self.resource("x")), for: key, readAt: cache.generation)
        }
        #expect(cache.count == 4)
        cache.removeAll { if case .file = $0 { false } else { true } }
        #expect(cache.count == 1 && cache.entry(for: .file(sha)) != nil)
    }

    @Test("one name in two Unicode spellings is one key, as the catalog's lookup treats it")
    func unicodeSpellings() {
        var cache = ResourceCache(maximumEntries: 16, maximumBytes: 0)
        cache.insert(.init(Self.resource("x")), for: .file("caf\u{E9}"), readAt: cache.generation)
        cache.remove([.file("cafe\u{301}")])
        #expect(cache.count == 0)
    }
}
