import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where access-log lines go: appended to a bounded buffer by the event loops (a copy under a
/// lock, never a system call), written out by this service in large writes on NIO's blocking
/// thread pool, as nginx's `access_log … buffer=` does. A full buffer drops lines and counts them
/// (`depot_access_log_dropped_total`) rather than slowing answers down.
///
/// The buffer is written when it holds ``flushBytes``, and at least every
/// ``AccessLogConfiguration/flushInterval``; at graceful shutdown, after the server has stopped,
/// the rest is written.
package final class AccessLogWriter: Service, Sendable {
    /// A write is due once the buffer holds this much.
    package static let flushBytes = 64 * 1024

    private struct Buffer {
        var bytes: [UInt8] = []
        /// Whether the writer was woken for the bytes now held.
        var woken = false
    }

    let configuration: AccessLogConfiguration
    /// Told how many lines were dropped (`depot_access_log_dropped_total`).
    let dropped: @Sendable (Int) -> Void
    let logger: Logger
    private let buffer = Mutex(Buffer())
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// Where lines are written: standard output, or the configured file opened for appending.
    private let descriptor: Int32

    package init(configuration: AccessLogConfiguration, dropped: @escaping @Sendable (Int) -> Void, logger: Logger) throws {
        self.configuration = configuration
        self.dropped = dropped
        self.logger = logger
        (wakeUps, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        if let path = configuration.path {
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o640)
            guard descriptor >= 0 else {
                throw AccessLogError("Cannot open the access log \(path): \(String(cString: strerror(errno)))")
            }
            self.descriptor = descriptor
        } else {
            self.descriptor = STDOUT_FILENO
        }
    }

    deinit {
        if descriptor != STDOUT_FILENO { close(descriptor) }
    }

    /// Adds one line; drops it (and counts it) when the buffer has no room for it.
    func append(_ line: [UInt8]) {
        let wakes = buffer.withLock { buffer -> Bool? in
            guard buffer.bytes.count + line.count <= configuration.bufferBytes else { return nil }
            buffer.bytes.append(contentsOf: line)
            guard buffer.bytes.count >= Self.flushBytes, !buffer.woken else { return false }
            buffer.woken = true
            return true
        }
        switch wakes {
        case nil: dropped(1)
        case true?: wake.yield()
        case false?: break
        }
    }

    package func run() async throws {
        let wake = self.wake
        let interval = configuration.flushInterval
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while (try? await Task.sleep(for: interval)) != nil { wake.yield() }
                }
                for await _ in wakeUps { await flush() }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            wake.finish()
        }
        await flush()
    }

    /// Writes what the buffer holds.
    func flush() async {
        let bytes = buffer.withLock { buffer in
            buffer.woken = false
            var taken: [UInt8] = []
            swap(&taken, &buffer.bytes)
            return taken
        }
        guard !bytes.isEmpty else { return }
        let descriptor = self.descriptor
        let pipeSized = configuration.path == nil
        do {
            let unwritten = try await NIOThreadPool.singleton.runIfActive {
                Self.writeLines(bytes, to: descriptor, pipeSized: pipeSized)
            }
            if unwritten > 0 { dropped(unwritten) }
        } catch {
            logger.error("The access log could not be written", metadata: ["error": "\(error)"])
        }
    }

    /// Writes whole lines; returns how many could not be written. On standard output, which may
    /// be the same pipe as standard error (`2>&1`, a container's log), writes stay within
    /// `PIPE_BUF` at line ends, so no line is cut by another writer's.
    static func writeLines(_ bytes: [UInt8], to descriptor: Int32, pipeSized: Bool) -> Int {
        bytes.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count {
                var end = all.count
                if pipeSized, end - start > Int(PIPE_BUF) {
                    let limit = start + Int(PIPE_BUF)
                    end = (start..<limit).last { all[$0] == UInt8(ascii: "\n") }.map { $0 + 1 } ?? limit
                }
                while start < end {
                    let written = write(descriptor, all.baseAddress! + start, end - start)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return all[start...].count { $0 == UInt8(ascii: "\n") }
                    }
                    start += written
                }
            }
            return 0
        }
    }
}

/// The access log cannot be written where it is configured to be.
package struct AccessLogError: Error, CustomStringConvertible, Sendable {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}
