import DepotManifest
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
/// - a channel document is replaced atomically and durably (``replace(_:with:)``), after a
///   barrier, so it never names an object that a crash could lose.
///
/// One writer at a time (its callers serialize), on threads that may block: its calls are the
/// store's synchronous POSIX ones (`System.swift`), because `_NIOFileSystem` offers no `link(2)`
/// nor a `rename(2)` that replaces.
public final class ExportFolder: Sendable {
    /// The folder's path.
    public let root: FilePath

    private struct State {
        /// How many files were placed or replaced.
        var written = 0
        /// The folders that gained an entry since the last barrier.
        var touched: Set<String> = []
        var temporaryCount = 0
    }

    private let state = Mutex(State())
    /// `.lock`, held (`flock(2)`) while the folder is open: one writer a folder.
    private let lockDescriptor: Int32

    /// How many files were placed or replaced since the folder was opened.
    public var written: Int { state.withLock { $0.written } }

    /// Where temporary files are made: under the root, so renames are atomic; a dot folder, so
    /// the shipped nginx site never serves it.
    public static let partialFolder = ".partial"

    /// Opens (and makes, when missing) the folder at `root`, and removes what an interrupted
    /// writer left in `.partial/`. Throws when another writer has it open.
    public init(root: FilePath) throws {
        self.root = root
        try Self.makeFolders(root.string)
        let lockPath = root.string + "/.lock"
        lockDescriptor = lockPath.withCString { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        guard lockDescriptor >= 0 else { throw SystemCallError("Cannot open \(lockPath)") }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(lockDescriptor)
            throw StoreError(.invalidInput, "Another export is writing \(root)")
        }
        let partial = root.string + "/" + Self.partialFolder
        for name in Self.names(in: partial) { _ = (partial + "/" + name).withCString(unlink) }
        try Self.makeFolders(partial)
    }

    /// `LOCK_UN` before `close`: a child forked while the folder was open (until it runs `exec`)
    /// shares the open file description and would otherwise keep the lock.
    deinit {
        flock(lockDescriptor, LOCK_UN)
        close(lockDescriptor)
    }

    /// Whether something is at `path` (relative to the root).
    public func contains(_ path: String) -> Bool {
        absolute(path).withCString { access($0, F_OK) == 0 }
    }

    /// The bytes at `path`, or `nil` when nothing is there.
    public func read(_ path: String) -> [UInt8]? {
        try? BlockingFileReader.contents(of: absolute(path), maximumSize: .max)
    }

    /// Places the immutable object `bytes` at `path`, unless something is there already.
    /// Returns whether it wrote. Durable after the next ``barrier()``.
    @discardableResult
    public func place(_ path: String, bytes: [UInt8]) throws -> Bool {
        guard !contains(path) else { return false }
        try install(try temporaryFile(with: bytes), at: path)
        return true
    }

    /// Places a copy of the (durable, never rewritten) file at `source` at `path`, unless
    /// something is there already: a hard link when both are on one file system, which costs
    /// no bytes, else a copy. Returns whether it wrote. Durable after the next ``barrier()``.
    @discardableResult
    public func place(_ path: String, from source: FilePath) throws -> Bool {
        guard !contains(path) else { return false }
        try makeParent(of: path)
        let linked = source.string.withCString { from in absolute(path).withCString { link(from, $0) } } == 0
        if linked || errno == EEXIST {
            state.withLock { state in
                state.touched.insert(parent(of: path))
                state.written += linked ? 1 : 0
            }
            return linked
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
        for folder in touched.sorted() { try SystemSynchronize(FilePath(absolute(folder))) }
    }

    /// Replaces the document at `path` with `bytes` atomically and durably: after a crash it
    /// holds the old bytes or the new, whole. Returns false, writing nothing, when it holds
    /// `bytes` already.
    @discardableResult
    public func replace(_ path: String, with bytes: [UInt8]) throws -> Bool {
        guard read(path) != bytes else { return false }
        try install(try temporaryFile(with: bytes), at: path)
        try barrier()
        return true
    }

    /// Replaces the document of the channel `name` (``replace(_:with:)``), and for the default
    /// channel `manifest.json` too, as the origin serves it at both.
    public func replaceChannelDocument(named name: String, with bytes: [UInt8]) throws {
        try replace("channels/\(name)", with: bytes)
        if name == ChannelName.default { try replace("manifest.json", with: bytes) }
    }

    /// Removes the file at `path`, if any.
    public func remove(_ path: String) {
        _ = absolute(path).withCString(unlink)
    }

    /// The names in the folder `path` (relative), dot names excepted.
    public func list(_ path: String) -> [String] { Self.names(in: absolute(path)) }

    // MARK: - Files

    private func absolute(_ path: String) -> String { root.string + "/" + path }

    private func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    private func makeParent(of path: String) throws {
        let folder = parent(of: path)
        if !folder.isEmpty, !contains(folder) { try Self.makeFolders(absolute(folder)) }
    }

    /// A new file in `.partial/` holding `bytes`, synchronized.
    private func temporaryFile(with bytes: [UInt8]) throws -> String {
        try temporaryFile { writer in try bytes.withUnsafeBytes { try writer.write($0) } }
    }

    /// A new file in `.partial/` holding a copy of the file at `source`, synchronized.
    private func temporaryFile(copying source: String) throws -> String {
        try temporaryFile { writer in
            let reader = try BlockingFileReader(path: source)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            while case let count = try reader.read(into: buffer), count > 0 {
                try writer.write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
        }
    }

    /// A new file in `.partial/` with what `fill` writes, synchronized.
    private func temporaryFile(_ fill: (borrowing BlockingFileWriter) throws -> Void) throws -> String {
        let number = state.withLock { state in
            state.temporaryCount += 1
            return state.temporaryCount
        }
        let path = absolute("\(Self.partialFolder)/\(getpid())-\(number)")
        let writer = try BlockingFileWriter(creating: path, mode: 0o644)
        try fill(writer)
        try writer.synchronize()
        return path
    }

    /// Renames the temporary file `temporary` to `path`, replacing what is there.
    private func install(_ temporary: String, at path: String) throws {
        try makeParent(of: path)
        try SystemRename(FilePath(temporary), to: FilePath(absolute(path)))
        state.withLock { state in
            state.touched.insert(parent(of: path))
            state.written += 1
        }
    }

    /// `mkdir -p`, each new folder made durable in its parent.
    private static func makeFolders(_ path: String) throws {
        guard path.withCString({ access($0, F_OK) }) != 0 else { return }
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !parent.isEmpty { try makeFolders(parent) }
        guard path.withCString({ mkdir($0, 0o755) }) == 0 || errno == EEXIST else { throw SystemCallError("Cannot make the folder \(path)") }
        if !parent.isEmpty { try SystemSynchronize(FilePath(parent)) }
    }

    private static func names(in path: String) -> [String] {
        guard let folder = opendir(path) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names
    }
}
