import DepotFiles
import DepotManifest
import Foundation
import Synchronization
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder laid out as Depot's read URLs are (`channels/{name}`, `releases/{id}`,
/// `pages/{sha256}`, `packs/{page}`, `blobs/{sha256}`…, `deltas/{from}/{to}`, `roots/{n}.json`),
/// which any static web server, object store or CDN serves as it is (docs/architecture.md,
/// "Scaling out"). Written by `depot export`, the server's `export.directory` and `depot mirror`.
///
/// Two kinds of write keep every state a reader can see consistent:
/// - an immutable object is placed once, under a temporary name in `.partial/` then renamed
///   (or linked) into place, and ``barrier()`` makes every object placed so far durable;
/// - a channel document is replaced atomically and durably (``replaceChannelDocument(named:with:)``), after a
///   barrier, so it never names an object that a crash could lose.
///
/// One writer at a time (its callers serialize), on threads that may block: its calls are the
/// store's synchronous POSIX ones, through a descriptor of the folder (``ContainedFolder``), so
/// no link planted inside it is ever followed: not by the sweep, the clean-up of `.partial/`,
/// the lock, nor a placement.
public final class ExportFolder: Sendable {
    /// The folder's path.
    public let root: FilePath
    private let folder: ContainedFolder

    private struct State {
        /// How many files were placed or replaced.
        var written = 0
        /// The folders that gained an entry since the last barrier.
        var touched: Set<String> = []
        var temporaryCount = 0
    }

    private let state = Mutex(State())
    /// `.lock`, held while the folder is open: one writer a folder.
    private let lock: FileLock

    /// How many files were placed or replaced since the folder was opened.
    public var written: Int { state.withLock { $0.written } }

    /// Where temporary files are made: under the root, so renames are atomic; a dot folder, so
    /// the shipped nginx site never serves it.
    public static let partialFolder = ".partial"
    static let lockFile = ".lock"

    /// Opens (and makes, when missing) the folder at `root`, and removes what an interrupted
    /// writer left in `.partial/`. Throws when another writer has it open, or when `.lock` or
    /// `.partial` is not what Depot made there (a link).
    public init(root: FilePath) throws {
        self.root = root
        folder = try ContainedFolder(root: root.string)
        guard let lock = try FileLock.acquire(Self.lockFile, in: folder, exclusive: true, wait: false) else {
            throw FolderError(.locked, "Another export is writing \(root)")
        }
        self.lock = lock
        if try folder.status(of: Self.partialFolder, kind: S_IFDIR) != nil {
            for name in try folder.names(in: Self.partialFolder) { try folder.remove("\(Self.partialFolder)/\(name)") }
        }
    }

    /// Whether the folder holds `object` (a link in its place is refused).
    public func contains(_ object: TreeObject) throws -> Bool {
        try folder.contains(object.path)
    }

    /// The bytes of `object`, or `nil` when the folder does not hold it.
    public func read(_ object: TreeObject) throws -> [UInt8]? {
        try folder.read(object.path)
    }

    /// Places the immutable `object`, whose bytes are `bytes`, unless the folder holds it
    /// already. Returns whether it wrote. Durable after the next ``barrier()``.
    @discardableResult
    public func place(_ object: TreeObject, bytes: [UInt8]) throws -> Bool {
        guard try !contains(object) else { return false }
        try install(try temporaryFile(with: bytes), at: object.path)
        return true
    }

    /// Places the immutable `object` as a copy of the (durable, never rewritten) file at
    /// `source`, unless the folder holds it already: a hard link when both are on one file
    /// system, which costs no bytes, else a copy. Returns whether it wrote. Durable after the
    /// next ``barrier()``.
    ///
    /// A link shares the source's mode, so only a source with Depot's modes is linked
    /// (``DepotFiles/FileModes/isShared(_:)``): one only its owner reads (a blob a store stored
    /// 0600 before issue 56) is copied, with the folder's own mode, so the web server reads
    /// every file placed.
    @discardableResult
    public func place(_ object: TreeObject, from source: FilePath) throws -> Bool {
        let path = object.path
        guard try !contains(object) else { return false }
        if Self.isShared(source), try folder.link(source.string, at: path) {
            state.withLock { state in
                state.touched.insert(parent(of: path))
                state.written += 1
            }
            return true
        }
        try install(try temporaryFile(copying: source.string), at: path)
        return true
    }

    /// Makes every object placed since the last barrier durable: `fsync(2)` of each folder that
    /// gained an entry (each file was synchronized before it was renamed).
    public func barrier() throws {
        let touched = state.withLock { state in
            defer { state.touched = [] }
            return state.touched
        }
        for path in touched.sorted() { try folder.synchronize(folder: path) }
    }

    /// Replaces the document `object` with `bytes` atomically and durably: after a crash it
    /// holds the old bytes or the new, whole. Returns false, writing nothing, when it holds
    /// `bytes` already.
    @discardableResult
    private func replace(_ object: TreeObject, with bytes: [UInt8]) throws -> Bool {
        guard try read(object) != bytes else { return false }
        try install(try temporaryFile(with: bytes), at: object.path)
        try barrier()
        return true
    }

    /// Replaces the document of the channel `name` (atomically and durably: after a crash the
    /// folder holds the old bytes or the new, whole), and for the default channel
    /// `manifest.json` too, as the origin serves it at both.
    ///
    /// A signed document is never replaced by an unsigned one: clients that check signatures
    /// would refuse the folder from then on (an exporter run without its key, a mirror of an
    /// unsigned source).
    public func replaceChannelDocument(named name: String, with bytes: [UInt8]) throws {
        let object = try TreeObject.channel(name)
        func signed(_ bytes: [UInt8]?) -> Bool {
            bytes.flatMap { try? JSONDecoder().decode(ChannelDocument.self, from: Data($0)) }.map { !$0.signatures.isEmpty } ?? false
        }
        if signed(try read(object)), !signed(bytes) {
            throw ExportError("The channel \(name) is signed in the folder; an unsigned document does not replace it")
        }
        try replace(object, with: bytes)
        if name == ChannelName.default { try replace(.manifest, with: bytes) }
    }

    /// The folders of immutable objects, in the order a sweep removes from them: what stays
    /// always has everything below it.
    private static let sweptFolders = ["releases", "pages", "packs", "deltas", "blobs"]

    /// Removes every file of the object folders that is not an object `keep` keeps (a name
    /// that is no object's goes too): release documents, then pages and packs, then patches,
    /// then files, so that what stays has everything below it. Returns how many it removed.
    public func sweep(keeping keep: (TreeObject) -> Bool) throws -> Int {
        var removed = 0
        for top in Self.sweptFolders {
            let paths =
                top == "deltas"
                ? try folder.names(in: top).flatMap { base in try folder.names(in: "\(top)/\(base)").map { "\(top)/\(base)/\($0)" } }
                : try folder.names(in: top).map { "\(top)/\($0)" }
            for path in paths where !((try? TreeObject(path: path)).map(keep) ?? false) {
                try folder.remove(path)
                removed += 1
            }
        }
        return removed
    }

    // MARK: - Files

    private func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    /// A new file in `.partial/` holding `bytes`, synchronized; its path in the folder.
    private func temporaryFile(with bytes: [UInt8]) throws -> String {
        try temporaryFile { descriptor, path in
            guard bytes.withUnsafeBytes({ writeAll(descriptor, $0) }) else { throw FolderError.system("Cannot write \(root)/\(path)") }
        }
    }

    /// A new file in `.partial/` holding a copy of the file at `source`, synchronized.
    private func temporaryFile(copying source: String) throws -> String {
        try temporaryFile { descriptor, path in try copyFile(from: source, to: descriptor, named: "\(root)/\(path)") }
    }

    /// A new file in `.partial/` with what `fill` writes to its descriptor, synchronized.
    private func temporaryFile(_ fill: (Int32, String) throws -> Void) throws -> String {
        let number = state.withLock { state in
            state.temporaryCount += 1
            return state.temporaryCount
        }
        let path = "\(Self.partialFolder)/\(getpid())-\(number)"
        let descriptor = try folder.create(path)
        defer { close(descriptor) }
        try fill(descriptor, path)
        try Durability.synchronize(descriptor: descriptor, name: "\(root)/\(path)")
        return path
    }

    /// Whether the file at `source` has Depot's modes, readable by its group; false when it
    /// cannot be looked at (the copy then says why).
    private static func isShared(_ source: FilePath) -> Bool {
        var status = stat()
        return stat(source.string, &status) == 0 && FileModes.isShared(status.st_mode)
    }

    /// Renames the temporary file `temporary` to `path`, replacing what is there.
    private func install(_ temporary: String, at path: String) throws {
        try folder.rename(temporary, to: path)
        state.withLock { state in
            state.touched.insert(parent(of: path))
            state.written += 1
        }
    }
}
