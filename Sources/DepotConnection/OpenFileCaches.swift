import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// One ``OpenFileCache`` for each event loop that serves direct answers, and the service that
/// sweeps them every `idleTime` and closes them all on graceful shutdown.
package final class OpenFileCaches: Service, Sendable {
    private let capacity: Int
    private let idleTime: Duration
    private let logger: Logger
    private let caches = Mutex<[ObjectIdentifier: NIOLoopBound<OpenFileCache>]>([:])

    /// - Parameters:
    ///   - capacity: the most files each event loop keeps open; 0 keeps none.
    ///   - idleTime: how long an unused file may stay open, at least (at most twice as long).
    package init(capacity: Int, idleTime: Duration, logger: Logger) {
        self.capacity = capacity
        self.idleTime = idleTime
        self.logger = logger
    }

    /// The cache of `eventLoop`, made on first use. Call on `eventLoop`.
    func cache(on eventLoop: any EventLoop) -> OpenFileCache {
        caches.withLock { caches in
            if let cache = caches[ObjectIdentifier(eventLoop)] { return cache.value }
            let cache = OpenFileCache(capacity: capacity)
            caches[ObjectIdentifier(eventLoop)] = NIOLoopBound(cache, eventLoop: eventLoop)
            return cache
        }
    }

    package func run() async {
        await runPeriodically(every: idleTime, logger: logger, failure: "Sweeping open files failed") {
            await self.onEachLoop { $0.sweep() }
        }
        await onEachLoop { $0.closeAll() }
    }

    /// Runs `body` on each cache, on its event loop.
    private func onEachLoop(_ body: @escaping @Sendable (OpenFileCache) -> Void) async {
        for cache in caches.withLock({ Array($0.values) }) {
            try? await cache.eventLoop.submit { body(cache.value) }.get()
        }
    }
}
