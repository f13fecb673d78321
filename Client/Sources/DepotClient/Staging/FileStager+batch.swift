import DepotConcurrency
import DepotManifest
import DepotPolicy
import Foundation

extension FileStager {
    /// Fetches and verifies every file of `fetches` into `.depot/staging/{sha256}`, a few at a
    /// time; a file that fails is reported as failed and the others go on. Small files whose
    /// only way is a whole download come a page at a time, from the pages' packs; what a pack
    /// did not bring is fetched on its own. Returns a file for each fetch, in path order.
    ///
    /// Each file's outcome goes straight to its place (``Placed``): no list for each way of
    /// fetching, nor joined copies of them (a list of 100,000 outcomes is 9 MB).
    func stage(_ fetches: [ReleasePlan.Fetch]) async -> [SyncReport.File] {
        // In path order already (``ReleasePlan``): each packed file finds its place by a binary search.
        let fetches =
            zip(fetches, fetches.dropFirst()).allSatisfy { $0.entry.path < $1.entry.path }
            ? fetches : fetches.sorted { $0.entry.path < $1.entry.path }
        let wanted = packable(fetches)
        let placed = Placed(fetches)
        // The files no pack carries go meanwhile: a large file downloads while the packs do.
        async let alone: Void = stageEach(fetches.indices.filter { !wanted.contains(fetches[$0].entry.path) }, of: fetches, into: placed)
        await stageFromPacks(wanted, of: fetches, into: placed)
        let missed = placed.missing(fetches.indices.filter { wanted.contains(fetches[$0].entry.path) })
        await stageEach(missed, of: fetches, into: placed)
        await alone
        return placed.files()
    }

    /// The files of `indices` in `fetches`, each on its own, a few at a time, each placed at its
    /// index. A content at several paths is staged once, by its first fetch (two at once would
    /// write the same staged file); the others then find it staged. (A pack's files are staged
    /// one at a time, and need no such care.)
    private func stageEach(_ indices: [Int], of fetches: [ReleasePlan.Fetch], into placed: Placed) async {
        var contents = Set<CompactHex>()
        let isFirst = indices.map { contents.insert(fetches[$0].entry.digest).inserted }
        contents = []
        await stageConcurrently(indices.indices.filter { isFirst[$0] }.map { indices[$0] }, of: fetches, into: placed)
        await stageConcurrently(indices.indices.filter { !isFirst[$0] }.map { indices[$0] }, of: fetches, into: placed)
    }

    private func stageConcurrently(_ indices: [Int], of fetches: [ReleasePlan.Fetch], into placed: Placed) async {
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            for _ in 0..<min(max(1, parallelDownloads), indices.count) {
                let index = indices[next]
                next += 1
                group.addTask { placed.put(await stage(fetches[index]), at: index) }
            }
            while await group.next() != nil, next < indices.count {
                let index = indices[next]
                next += 1
                group.addTask { placed.put(await stage(fetches[index]), at: index) }
            }
        }
    }

    /// The paths of `fetches` that a whole download is the only way to fetch
    /// (``ReleasePlan/Fetch/actions(stagedIntact:local:inMemoryLimit:decoding:)``), not staged yet: the
    /// ones the pages' packs may bring.
    private func packable(_ fetches: [ReleasePlan.Fetch]) -> Set<String> {
        Set(
            fetches.filter { fetch in
                guard !staging.file(fetch.entry.sha256).exists, let local = try? localFile(fetch.entry.path) else { return false }
                let actions = fetch.actions(
                    stagedIntact: false,
                    local: localCopies.copy(at: local, held: fetch.held),
                    inMemoryLimit: Self.inMemoryLimit,
                    decoding: ContentDecoders.decodable
                )
                return Self.isPackable(actions)
            }.map(\.entry.path)
        )
    }

    /// Whether a file whose ways to fetch are `actions` is one a page's pack may bring: its one
    /// way is a whole download through memory. The one rule of the stager and of a check's plan.
    static func isPackable(_ actions: [ReleasePlan.Fetch.Action]) -> Bool {
        guard actions.count == 1, case .download = actions[0] else { return false }
        return true
    }

    /// Stages from the pages' packs the files of `wanted` (``packable(_:)``) they carry, each
    /// placed at its index in `fetches`. A pack request that fails stages nothing, and its files
    /// are fetched on their own.
    private func stageFromPacks(_ wanted: Set<String>, of fetches: [ReleasePlan.Fetch], into placed: Placed) async {
        let runs = PackFetch.runs(pages: pages, wanted: wanted)
        let packs = PackFetch(server: server, session: session)
        // Fetched a few at a time; staged one at a time, here: files created in one folder from
        // several threads at once contend for it in the kernel (ext4 spins on the folder's lock).
        await withTaskGroup(of: (PackFetch.Run, PackFetch.Answer?).self) { group in
            var next = 0
            func addRun() {
                let run = runs[next]
                next += 1
                group.addTask { (run, try? await packs.fetch(run)) }
            }
            for _ in 0..<min(max(1, parallelDownloads), runs.count) { addRun() }
            while let (run, answer) = await group.next() {
                if next < runs.count { addRun() }
                guard let answer else { continue }
                for file in PackFetch.stage(run, from: answer, staging: staging) {
                    progress?.staged(file.path)
                    if let index = Self.index(of: file.path, in: fetches) { placed.put(file, at: index) }
                }
            }
        }
    }

    /// The index of the fetch of `path` in `fetches`, in path order: a binary search.
    static func index(of path: String, in fetches: [ReleasePlan.Fetch]) -> Int? {
        var (low, high) = (0, fetches.count)
        while low < high {
            let middle = (low + high) / 2
            if fetches[middle].entry.path < path { low = middle + 1 } else { high = middle }
        }
        return low < fetches.count && fetches[low].entry.path == path ? low : nil
    }
}
