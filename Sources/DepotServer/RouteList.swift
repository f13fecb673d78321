import Synchronization

/// The routes a built application's router has, as `METHOD /path` (for the package's tests: the
/// table of what each route needs is checked against it).
package final class RouteList: Sendable {
    private let routes = Mutex<[String]>([])

    package init() {}

    /// The routes recorded.
    package var all: [String] { routes.withLock { $0 } }

    func record(_ routes: [String]) { self.routes.withLock { $0 = routes } }
}
