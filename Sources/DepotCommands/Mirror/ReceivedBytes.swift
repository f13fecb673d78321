import Synchronization

/// The body bytes a transfer from a source has received so far, counted by the transfer and
/// read by the watch of its ``DepotClient/TransferLimits``.
final class ReceivedBytes: Sendable {
    private let count = Atomic<Int64>(0)

    /// The total so far.
    var total: Int64 { count.load(ordering: .relaxed) }

    /// Counts `bytes` more.
    func add(_ bytes: Int) { count.add(Int64(bytes), ordering: .relaxed) }
}
