import DepotManifest

extension UpdatePlan {
    /// The files of `packable` (whose one way is a whole download) that come in their pages'
    /// packs as the stager fetches them (``PackFetch/runs(pages:wanted:)``), each counted at its
    /// member's length in the pack: signed, since the page lists it. A whole page may come in its
    /// brotli pack instead, for fewer bytes; the server's word on that pack's length is not
    /// signed (a mirror that says 1 byte would have a budget let 30 files through for nothing),
    /// and the brotli attempt is cut off at the pack's length (``PackFetch/fetch(_:)``), so such
    /// a page is counted at its pack's length, as a bound (``File/isBound``).
    static func pack(_ files: inout [File], _ packable: Set<String>, pages: [(sha256: String, page: ReleasePage)]) {
        let index = Dictionary(files.indices.map { (files[$0].path, $0) }) { first, _ in first }
        for run in PackFetch.runs(pages: pages, wanted: packable) {
            let places = run.members.map { index[$0.entry.path] }
            guard places.allSatisfy({ $0 != nil }) else { continue }
            for (place, member) in zip(places.compactMap { $0 }, run.members) {
                files[place].way = .packed
                files[place].expectedBytes = member.length
                files[place].isBound = run.takesBrotliPack
            }
        }
    }
}
