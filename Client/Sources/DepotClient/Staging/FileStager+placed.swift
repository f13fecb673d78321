import DepotConcurrency
import DepotManifest
import DepotPolicy

extension FileStager {
    /// The outcome of each fetch of a staging, at the fetch's index, filled from the tasks that
    /// stage them: one list for the whole staging, however many ways its files come.
    final class Placed: Sendable {
        private let slots: Locked<(files: [SyncReport.File], placed: [Bool])>

        /// A slot for each of `fetches`, holding a failure until a way stages it: one list of
        /// the final size, which ``files()`` hands over without a copy.
        init(_ fetches: [ReleasePlan.Fetch]) {
            slots = Locked(
                (
                    fetches.map { fetch in
                        SyncReport.File(path: fetch.entry.path, outcome: .failed, bytesTransferred: 0, size: fetch.entry.size, error: "not staged")
                    },
                    [Bool](repeating: false, count: fetches.count)
                )
            )
        }

        /// Places `file` at `index`, unless a file is there already (the first way that staged
        /// it says how).
        func put(_ file: SyncReport.File, at index: Int) {
            slots.withLock { slots in
                guard !slots.placed[index] else { return }
                slots.placed[index] = true
                slots.files[index] = file
            }
        }

        /// Those of `indices` with no file yet.
        func missing(_ indices: [Int]) -> [Int] {
            slots.withLock { slots in indices.filter { !slots.placed[$0] } }
        }

        /// The files, in index order; the slots are emptied.
        func files() -> [SyncReport.File] {
            slots.withLock { slots in
                defer { slots = ([], []) }
                return slots.files
            }
        }
    }
}
