import NIOCore

#if canImport(Glibc)
import Glibc
#endif

extension Channel {
    /// Sets `TCP_CORK` (Linux): while set, the kernel sends only full segments, so a response
    /// head written before a `sendfile(2)` leaves in the same segment as the file's first bytes;
    /// clearing it sends what is left. NIO names no such option, hence the raw one. Call on the
    /// channel's event loop.
    ///
    /// - Returns: Whether the option was set: `false` where there is no `TCP_CORK`, or when the
    ///   socket refused it (closed already).
    func setCork(_ on: Bool) -> Bool {
        #if os(Linux)
        guard let options = syncOptions else { return false }
        return (try? options.setOption(.tcpOption(.init(rawValue: CInt(TCP_CORK))), value: on ? 1 : 0)) != nil
        #else
        return false
        #endif
    }
}
