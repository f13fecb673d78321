import Synchronization

/// Counts the server's open connections against ``ConnectionLimits/maxConnections``.
///
/// Written here because Hummingbird 2.28.1's `MaximumAvailableConnections`, which stops
/// accepting at the limit, did not hold connections back in Depot's server (tested: four of four
/// were served with a limit of two).
package final class OpenConnections: Sendable {
    let maximum: Int
    private let count = Atomic<Int>(0)

    package init(maximum: Int) {
        self.maximum = maximum
    }

    /// Counts a new connection; false, and nothing counted, when the limit is reached.
    package func open() -> Bool {
        let now = count.wrappingAdd(1, ordering: .relaxed).newValue
        guard now <= maximum else {
            count.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func close() {
        count.wrappingSubtract(1, ordering: .relaxed)
    }
}
