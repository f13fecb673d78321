import NIOCore
import NIOPosix

/// A port on 127.0.0.1 nothing listens on: bound, read and closed again, for a process a test
/// starts later on a port it must know first (nginx's upstream, a server a client waits for).
package func freeLocalPort() async throws -> Int {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
    let port = channel.localAddress!.port!
    try await channel.close()
    return port
}
