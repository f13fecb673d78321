import Synchronization

/// Blobs that were stored but that their writer has not yet recorded anywhere (a publish before
/// its catalog commit, a public-folder scan before its result is swapped in). Collection never
/// deletes a held blob, so it cannot race with a writer, whatever the timing.
///
/// A blob is held from before it gets its name until its writer calls
/// ``BlobStore/release(_:)``; holds are counted, so two writers of the same content each release
/// their own.
final class BlobHolds: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func hold(_ sha256: String) {
        counts.withLock { $0[sha256, default: 0] += 1 }
    }

    func release(_ sha256: String) {
        counts.withLock { counts in
            guard let count = counts[sha256] else { return }
            counts[sha256] = count > 1 ? count - 1 : nil
        }
    }

    var held: Set<String> { counts.withLock { Set($0.keys) } }

    /// Runs `remove` unless `sha256` is held, under the lock that ``hold(_:)`` takes: a writer
    /// that stores the same content again holds it first, so either the removal happens before
    /// the writer looks for a stored copy, or it does not happen. Returns whether it ran.
    func removeUnlessHeld(_ sha256: String, _ remove: () -> Void) -> Bool {
        counts.withLock { counts in
            guard counts[sha256] == nil else { return false }
            remove()
            return true
        }
    }
}
