#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX calls the store makes directly, because `_NIOFileSystem` offers no plain
/// `rename(2)` (its `moveItem` refuses to replace) or `realpath(3)`.
@inline(__always)
func SystemRename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 {
    rename(from, to)
}

@inline(__always)
func SystemErrno() -> Int32 { errno }

/// The canonical absolute path of `path`, with every symbolic link resolved, or `nil` when it
/// does not exist.
func SystemRealPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}
