#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes all of `bytes` to `descriptor`, going on after a short write or an interrupted call:
/// the one `write(2)` loop of the folders Depot writes. Returns false when a write fails, with
/// `errno` as it left it, for the caller to tell in its own error.
public func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return false }
        offset += written
    }
    return true
}

/// Copies the file at `source` (opened by its path, as the caller gave it) to `descriptor`, a
/// chunk at a time, passing each chunk to `observe` as it goes (a hash of what is copied): the
/// one copy loop of the folders Depot writes. Not synchronized.
///
/// - Throws: ``FolderError`` when `source` cannot be opened or read, or `destination` (its name
///   in messages) written.
public func copyFile(
    from source: String,
    to descriptor: Int32,
    named destination: String,
    observe: (UnsafeRawBufferPointer) -> Void = { _ in }
) throws {
    let input = open(source, O_RDONLY | O_CLOEXEC)
    guard input >= 0 else { throw FolderError.system("Cannot open \(source)") }
    defer { close(input) }
    try copyFile(from: input, named: source, to: descriptor, named: destination, observe: observe)
}

/// ``copyFile(from:to:named:observe:)`` from the open file `input` (`source` its name in
/// messages), read from where it stands to its end.
public func copyFile(
    from input: Int32,
    named source: String,
    to descriptor: Int32,
    named destination: String,
    observe: (UnsafeRawBufferPointer) -> Void = { _ in }
) throws {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while true {
        let count = read(input, buffer.baseAddress!, buffer.count)
        if count < 0, errno == EINTR { continue }
        guard count >= 0 else { throw FolderError.system("Cannot read \(source)") }
        if count == 0 { return }
        let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<count])
        observe(chunk)
        guard writeAll(descriptor, chunk) else { throw FolderError.system("Cannot write \(destination)") }
    }
}
