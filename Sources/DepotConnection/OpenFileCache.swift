import NIOCore
import _NIOFileSystem

#if os(Linux)
import CLinuxCalls
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stored file open for ``DirectResponder`` answers, shared by every answer on its event loop
/// that sends from it at the same time (`sendfile(2)` reads at an offset of its own, never at the
/// descriptor's position).
final class OpenFile {
    let handle: NIOFileHandle
    /// Answers sending from it now: at first, the one that opened it.
    fileprivate var users = 1
    /// When it was last taken, on its cache's clock.
    fileprivate var lastUse: UInt64
    /// No longer in the cache: it closes when its last answer is done.
    fileprivate var retired = false

    fileprivate init(handle: NIOFileHandle, lastUse: UInt64) {
        self.handle = handle
        self.lastUse = lastUse
    }

    /// Gives the file back once an answer is done with it (written, or failed).
    func release() {
        users -= 1
        closeIfRetiredAndUnused()
    }

    fileprivate func retire() {
        retired = true
        closeIfRetiredAndUnused()
    }

    private func closeIfRetiredAndUnused() {
        if retired, users == 0 { try? handle.close() }
    }

    /// Whether the file is still the one at its path: a file replaced (by a rename over it) or
    /// removed since it was opened has no links left.
    fileprivate var isLinked: Bool {
        (try? handle.withUnsafeFileDescriptor { descriptor in
            #if os(Linux)
            depot_fd_is_linked(descriptor) == 1
            #else
            var status = stat()
            return fstat(descriptor, &status) == 0 && status.st_nlink > 0
            #endif
        }) ?? false
    }
}

/// The files one event loop's direct answers send from, kept open between answers, as nginx's
/// `open_file_cache`: a hit costs one `fstat(2)` instead of an `open(2)` and a `close(2)`, which
/// on this machine were about a ninth of a 64 KiB range answer's CPU (`docs/performance-history.md`).
///
/// Confined to its event loop, so it takes no lock. It holds at most `capacity` files, evicting
/// the least recently used one; a file no answer has taken between two ``sweep()``s is closed, so
/// an idle server keeps nothing open, not even the space of a removed blob. A file is closed only
/// once no answer sends from it.
final class OpenFileCache {
    private var files: [FilePath: OpenFile] = [:]
    private var capacity: Int
    /// Counts ``open(_:)`` calls: the order of use.
    private var clock: UInt64 = 0
    /// The clock at the last ``sweep()``.
    private var sweptAt: UInt64 = 0

    /// - Parameter capacity: the most files kept open; 0 opens a file for each answer.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The number of files kept open between answers.
    var count: Int { files.count }

    /// The open file at `path`, taken for one answer, which must ``OpenFile/release()`` it;
    /// `nil` when it cannot be opened.
    func open(_ path: FilePath) -> OpenFile? {
        clock += 1
        if let file = files[path] {
            if file.isLinked {
                file.users += 1
                file.lastUse = clock
                return file
            }
            files[path] = nil
            file.retire()
        }
        guard let handle = try? NIOFileHandle(_deprecatedPath: path.string) else { return nil }
        let file = OpenFile(handle: handle, lastUse: clock)
        guard capacity > 0 else {
            file.retire()
            return file
        }
        if files.count >= capacity, let oldest = files.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            files[oldest.key] = nil
            oldest.value.retire()
        }
        files[path] = file
        return file
    }

    /// Closes the files no answer has taken since the last sweep (each once its answers are done).
    func sweep() {
        for (path, file) in files where file.lastUse <= sweptAt {
            files[path] = nil
            file.retire()
        }
        sweptAt = clock
    }

    /// Closes every file (each once its answers are done) and keeps none open from now on: the
    /// server is stopping.
    func closeAll() {
        capacity = 0
        for file in files.values { file.retire() }
        files = [:]
    }
}
