#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure to touch a folder Depot writes, told in one line, with a code callers can switch on.
public struct FolderError: Error, CustomStringConvertible, Sendable {
    public enum Code: Sendable, Equatable {
        /// An entry is not what Depot makes there: a link, a file where a folder goes, a name
        /// that is not a path below the folder.
        case refused
        /// The disk or quota is full.
        case noSpace
        /// Another system call failed.
        case io
        /// Another process holds the folder's lock.
        case locked
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The failure of a system call just made, from `errno`: `message` and the error.
    public static func system(_ message: String) -> FolderError {
        let number = errno
        if number == ENOSPC || number == EDQUOT { return FolderError(.noSpace, "\(message): no space left") }
        return FolderError(.io, "\(message): \(String(cString: strerror(number))) (errno \(number))")
    }
}
