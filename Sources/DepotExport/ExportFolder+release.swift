import DepotManifest
import Foundation
import NIOPosix

/// Where the objects of a release come from when it is written into an ``ExportFolder``: the
/// store (`depot export`, and a server with `export.directory`) or another server
/// (`depot mirror`). A source hands over only what it has checked.
public protocol ExportSource: Sendable {
    /// The release document `id`, or `nil` when the source does not have it (any longer).
    func releaseDocument(_ id: String) async throws -> [UInt8]?
    /// The page document `sha256`. Asked for twice, once for what it names and once to place
    /// it, so that a large release's pages need not all be held at once.
    func pageDocument(_ sha256: String) async throws -> [UInt8]
    /// The patch of the document `target` (whose bytes are `targetBytes`) from `base`, both of
    /// `kind`, to place at `deltas/{base}/{target}`; `nil` when there is none to place.
    func documentPatch(of kind: ExportDocumentKind, from base: String, to target: String, targetBytes: [UInt8]) async throws -> [UInt8]?
    /// Places in `folder` everything the page `sha256` names below it: each entry's file, gzip
    /// variant, block index and block pack and listed patches, and the page's pack.
    func placeFiles(of page: ReleasePage, sha256: String, in folder: ExportFolder) async throws
}

/// The documents a patch of ``ExportSource/documentPatch(of:from:to:targetBytes:)`` is between.
public enum ExportDocumentKind: String, Sendable {
    case release = "releases"
    case page = "pages"
}

extension ExportFolder {
    /// New pages handled at a time: bounds the memory a first export of a large catalog needs.
    private static let pagesAtATime = 64

    /// Writes the release `id` from `source` unless the folder has it, after its parent (when
    /// `withParent` and the source has it, for the patches from it); returns how many releases
    /// it wrote. The one order of writes of `depot export` and `depot mirror`, which keeps every
    /// state a reader can see consistent:
    /// 1. each new page's files, gzip variants, block indexes, packs and patches;
    /// 2. made durable, then the new pages;
    /// 3. made durable, then the release document.
    /// An object in the folder therefore has everything below it there, durable; an interrupted
    /// writer leaves only objects no document names, which the next one completes. (The channel
    /// documents come last, made durable, through ``replaceChannelDocument(named:with:)``.)
    ///
    /// Every name a document gives is checked before it is used (``DepotManifest/TreeObject``,
    /// ``DepotManifest/ReleaseDocument/problem``, ``DepotManifest/ReleasePage/problem``): the
    /// same rules a client applies, whoever the source is.
    public func write(release id: String, withParent: Bool, from source: some ExportSource) async throws -> Int {
        guard try !contains(try Self.object { try .release(id) }) else { return 0 }
        guard let bytes = try await source.releaseDocument(id) else { throw ExportError("The source has no release \(id)") }
        return try await write(release: id, bytes: bytes, withParent: withParent, from: source)
    }

    /// ``write(release:withParent:from:)`` of a release the folder lacks, whose document
    /// `bytes` the source gave: a parent's is asked for once, for its patches and to write it.
    private func write(release id: String, bytes: [UInt8], withParent: Bool, from source: some ExportSource) async throws -> Int {
        guard let release = try? JSONDecoder().decode(ReleaseDocument.self, from: Data(bytes)) else {
            throw ExportError("The release \(id) is not a release document")
        }
        if let problem = release.problem { throw ExportError("The release \(id) is refused: \(problem)") }
        var written = 0
        var parent: ReleaseDocument?
        if let parentID = release.parent, let parentBytes = try await source.releaseDocument(parentID) {
            parent = try? JSONDecoder().decode(ReleaseDocument.self, from: Data(parentBytes))
            if withParent, try !contains(try Self.object { try .release(parentID) }) {
                do {
                    written += try await write(release: parentID, bytes: parentBytes, withParent: false, from: source)
                } catch {
                    // Retention removed the parent while it was being written: it was there only
                    // for the patches from it, and what was placed of it is swept like any
                    // object no document names.
                    guard try await source.releaseDocument(parentID) == nil else { throw error }
                    parent = nil
                }
            }
            if parent != nil, let patch = try await source.documentPatch(of: .release, from: parentID, to: id, targetBytes: bytes) {
                let object = try Self.object { try .delta(from: parentID, to: id) }
                try await blocking { try $0.place(object, bytes: patch) }
            }
        }
        let bases = release.pageBases(from: parent)
        var seen: Set<String> = []
        let missing = try release.pages.filter { page in try seen.insert(page).inserted && !contains(Self.object { try .page(page) }) }
        for sha256 in missing {
            let pageBytes = try await source.pageDocument(sha256)
            guard let page = try? JSONDecoder().decode(ReleasePage.self, from: Data(pageBytes)) else {
                throw ExportError("The page \(sha256) is not a release page")
            }
            if let problem = page.problem { throw ExportError("The page \(sha256) is refused: \(problem)") }
            try await source.placeFiles(of: page, sha256: sha256, in: self)
            if let base = bases[sha256], let patch = try await source.documentPatch(of: .page, from: base, to: sha256, targetBytes: pageBytes) {
                let object = try Self.object { try .delta(from: base, to: sha256) }
                try await blocking { try $0.place(object, bytes: patch) }
            }
        }
        try await blocking { try $0.barrier() }
        for start in stride(from: 0, to: missing.count, by: Self.pagesAtATime) {
            var pages: [(TreeObject, [UInt8])] = []
            for sha256 in missing[start..<min(start + Self.pagesAtATime, missing.count)] {
                pages.append((try Self.object { try .page(sha256) }, try await source.pageDocument(sha256)))
            }
            try await blocking { [pages] folder in for (object, bytes) in pages { try folder.place(object, bytes: bytes) } }
        }
        let object = try Self.object { try .release(id) }
        try await blocking { folder in
            try folder.barrier()
            try folder.place(object, bytes: bytes)
        }
        return written + 1
    }

    /// The object `make` names, or a ``ExportError`` that says why the name is refused.
    static func object(_ make: () throws -> TreeObject) throws -> TreeObject {
        do {
            return try make()
        } catch let problem as TreeObject.Problem {
            throw ExportError("A document names an object that cannot be: \(problem.message)")
        }
    }

    /// Runs `body`, which makes the folder's blocking calls, on NIO's blocking pool.
    @discardableResult
    public func blocking<Result: Sendable>(_ body: @escaping @Sendable (ExportFolder) throws -> Result) async throws -> Result {
        try await NIOThreadPool.singleton.runIfActive { try body(self) }
    }
}
