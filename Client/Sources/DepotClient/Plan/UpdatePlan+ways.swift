import DepotManifest
import DepotPolicy

extension UpdatePlan {
    /// One fetch of a plan as an estimate weighs it: its ways, in the stager's order
    /// (``ReleasePlan/Fetch/actions(stagedIntact:local:inMemoryLimit:decoding:)``), and the
    /// local file it would build on.
    struct Way {
        let fetch: ReleasePlan.Fetch
        let actions: [ReleasePlan.Fetch.Action]
        let local: FolderFile
        /// The bytes of the whole file's cheapest download (``FileStager/wholeLength(of:)``).
        let wholeLength: Int64

        /// The block rebuild its way `.blocks(restoring)` asks about: the held content rebuilt
        /// (then patched) when a patch restores from it, else the entry itself.
        func blockQuestion(restoring: ReleaseEntry.Patch?) -> BlockQuestion {
            if let patch = restoring, let held = fetch.held {
                return BlockQuestion(entry: held, local: local, budget: wholeLength - patch.size, patchBytes: patch.size)
            }
            return BlockQuestion(entry: fetch.entry, local: local, budget: wholeLength, patchBytes: 0)
        }

        /// The block rebuilds the estimate may ask about, in order: those of the ways tried
        /// before one that always answers (only a block rebuild may not). The estimate asks
        /// them in turn up to the first worth its bytes, so no index is fetched that it would
        /// not weigh.
        var blockQuestions: [BlockQuestion] {
            var questions: [BlockQuestion] = []
            for action in actions {
                guard case .blocks(let restoring) = action else { break }
                questions.append(blockQuestion(restoring: restoring))
            }
            return questions
        }
    }

    /// A block rebuild an estimate weighs: `entry`'s blocks matched against `local`, within
    /// `budget` bytes, and the bytes of the patch that follows it.
    struct BlockQuestion {
        let entry: ReleaseEntry
        let local: FolderFile
        let budget: Int64
        let patchBytes: Int64
    }

    /// The ways of each fetch of `plan`: what is staged intact, and what the folder holds at
    /// its path (``LocalCopies``). Local reads only, no network.
    static func ways(
        of plan: ReleasePlan,
        staging: StagingFolder,
        localFile: (String) throws -> FolderFile,
        localCopies: LocalCopies
    ) throws -> [Way] {
        try plan.fetches.map { fetch in
            let local = try localFile(fetch.entry.path)
            let actions = fetch.actions(
                stagedIntact: StagedContent.isIntact(staging.file(fetch.entry.sha256), for: fetch.entry),
                local: localCopies.copy(at: local, held: fetch.held),
                inMemoryLimit: FileStager.inMemoryLimit,
                decoding: ContentDecoders.decodable
            )
            return Way(fetch: fetch, actions: actions, local: local, wholeLength: FileStager.wholeLength(of: fetch.entry))
        }
    }
}
