import DepotManifest

extension UpdatePlan {
    /// The files of `packable` (whose one way is a whole download) that come in their pages'
    /// packs as the stager fetches them (``PackFetch/runs(pages:wanted:)``): a whole page in its
    /// brotli pack, when the server has one smaller than the pack, its length shared among them
    /// by size (``PackFetch/shares(of:sizes:)``), as their report will count it.
    static func pack(
        _ files: inout [File],
        _ packable: Set<String>,
        pages: [(sha256: String, page: ReleasePage)],
        brotliLength: (String) async -> Int64?
    ) async {
        let index = Dictionary(files.indices.map { (files[$0].path, $0) }) { first, _ in first }
        for run in PackFetch.runs(pages: pages, wanted: packable) where run.takesBrotliPack {
            guard let length = await brotliLength(run.page), length <= run.packLength else { continue }
            let places = run.members.compactMap { index[$0.entry.path] }
            guard places.count == run.members.count else { continue }
            for (place, share) in zip(places, PackFetch.shares(of: length, sizes: places.map { files[$0].size })) {
                files[place].way = .packed
                files[place].expectedBytes = share
            }
        }
    }
}
