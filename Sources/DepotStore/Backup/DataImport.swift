import Crypto
import DepotDelta
import DepotFiles
import DepotHTTP
import DepotManifest
import Foundation

/// Rebuilds a data folder from a published tree: an export folder, or the folder `depot
/// mirror` filled from any origin or static mirror, every document and file of it checked
/// (signatures, SHA-256s) on the way in.
///
/// The releases the tree holds come back byte for byte, so they keep their ids and numbers:
/// clients that hold one get patches from it. Each channel points where its signed document
/// points, with a serial raised by a margin, so the next document the rebuilt origin signs is
/// newer than any it signed before, as far as the margin reaches. What the tree never held
/// cannot come back: releases retention had removed, each channel's history before its
/// document, health reports, the audit trail, uploads not yet released, and the keys.
public enum DataImport {
    /// What an import put in place.
    public struct Outcome: Sendable, Equatable {
        public var releases = 0
        public var blobs = 0
        public var channels = 0
        public var roots = 0
        /// Patches the releases list that the tree did not hold: the origin makes them again
        /// when asked.
        public var patchesNotHeld = 0
        /// Where the rebuilt catalog stands (``Maintenance/finishRebuild(_:releaseMargin:serialMargin:now:)``).
        public var summary: RebuildSummary?
    }

    /// Refuses a `data` that holds anything, before any work.
    public static func checkDestination(_ data: URL) throws {
        _ = try DataFolder(data, doing: "import")
    }

    /// Removes the copy of a tree made for an import (beside the data folder), no link in it
    /// followed.
    public static func remove(tree: URL) {
        let tree = tree.standardizedFileURL
        try? ContainedFolder(root: tree.deletingLastPathComponent().path).removeTree(tree.lastPathComponent)
    }

    /// Builds `data`, which must not exist or be empty, from `tree`, for the channel documents
    /// `channels` (checked by the caller, as the tree's documents were); each channel's serial
    /// is its document's plus `serialMargin`; the next release's number is `releaseMargin` past
    /// the tree's newest. The folder appears by one rename, whole, which never replaces a
    /// data folder that appeared meanwhile (a server started on `data` during the import);
    /// `beforePlacing` runs just before it (a test's seam).
    public static func build(
        tree: URL,
        channels: [ChannelDocument],
        data: URL,
        serialMargin: Int64,
        releaseMargin: Int64,
        now: HTTPDate,
        beforePlacing: () async throws -> Void = {}
    ) async throws -> Outcome {
        let place = try DataFolder(data, doing: "import")
        let source = try ContainedFolder(root: tree.path, creating: false)
        let suffix = "importing"
        let staging = try place.staging(suffix: suffix)
        do {
            let outcome = try await ImportBuilder(tree: source, staging: staging, now: now)
                .build(channels: channels, serialMargin: serialMargin, releaseMargin: releaseMargin)
            try await place.place(staging, suffix: suffix, beforePlacing: beforePlacing)
            return outcome
        } catch {
            place.discard(suffix: suffix)
            throw error
        }
    }
}

/// One import's work, in the staging folder.
private struct ImportBuilder {
    /// The tree, read without following a link.
    let tree: ContainedFolder
    let staging: ContainedFolder
    let now: HTTPDate

    func build(channels: [ChannelDocument], serialMargin: Int64, releaseMargin: Int64) async throws -> DataImport.Outcome {
        let catalog = try Catalog(path: "\(staging.root)/catalog.sqlite")
        let maintenance = Maintenance(catalog)
        var outcome = DataImport.Outcome()
        var unheld: [(from: String, to: String)] = []
        var placed = Set<String>()
        for document in channels {
            guard (0...ImportLimits.largest).contains(document.serial), document.serial <= ImportLimits.largest - serialMargin else {
                throw StoreError(.invalidInput, "The channel \(document.channel)'s serial \(document.serial) is out of range")
            }
        }
        let releases = try releaseDocuments(namedBy: channels)
        let documents = Dictionary(releases.map { ($0.id, $0.document) }) { first, _ in first }
        let channelOf = Self.channels(of: releases, named: channels)
        for (id, bytes, document) in releases {
            let pages = try document.pages.map { sha256 in
                let bytes = try read(try .page(sha256), sha256: sha256)
                guard let page = try? JSONDecoder().decode(ReleasePage.self, from: Data(bytes)) else {
                    throw StoreError(.invalidInput, "The tree's page \(sha256) is not a page document")
                }
                return (sha256, bytes, page)
            }
            let entries = pages.flatMap(\.2.entries)
            if let problem = ImportLimits.problem(of: entries) {
                throw StoreError(.invalidInput, "The tree's release \(document.number) is refused: \(problem)")
            }
            let release = Maintenance.ImportedRelease(id: id, bytes: bytes, document: document, pages: pages)
            try await maintenance.importRelease(release, channel: channelOf[id] ?? ChannelName.default)
            for entry in entries where placed.insert(entry.sha256).inserted {
                outcome.blobs += 1
                unheld += try await placeFiles(of: entry, catalog: catalog)
            }
            if let parent = document.parent, let parentDocument = documents[parent] {
                let patches = try documentPatches(of: release, parent: (parent, parentDocument))
                try await BlobIndex(catalog).recordDocumentDeltas(patches, now: now)
            }
            outcome.releases += 1
        }
        try await maintenance.forgetPatches(unheld)
        outcome.patchesNotHeld = unheld.count
        for document in channels.sorted(by: { $0.channel < $1.channel }) {
            guard documents[document.release] != nil else { throw StoreError(.invalidInput, "The tree lacks the release of \(document.channel)") }
            try await maintenance.importChannel(document, serial: document.serial + serialMargin, now: now.secondsSince1970)
            outcome.channels += 1
        }
        try await maintenance.finishImport()
        outcome.summary = try await maintenance.finishRebuild(
            "import",
            releaseMargin: releaseMargin,
            serialMargin: serialMargin,
            now: now.secondsSince1970
        )
        outcome.roots = try copyRoots()
        let integrity = try await maintenance.integrityCheck()
        guard integrity == "ok" else { throw StoreError(.io, "The rebuilt catalog is damaged: \(integrity.prefix(200))") }
        return outcome
    }

    /// The releases the checked channel documents name, and their parents, grandparents… for as
    /// long as the tree holds them, each checked against its name, oldest first: nothing else
    /// the folder holds is taken (a leftover of another run, a file planted beside).
    private func releaseDocuments(namedBy channels: [ChannelDocument]) throws -> [(id: String, bytes: [UInt8], document: ReleaseDocument)] {
        var releases: [(id: String, bytes: [UInt8], document: ReleaseDocument)] = []
        var seen = Set<String>()
        var next = channels.flatMap(\.namedReleases)
        while let id = next.popLast() {
            guard seen.insert(id).inserted else { continue }
            let object = try TreeObject.release(id)
            let named = channels.contains { $0.namedReleases.contains(id) }
            guard try named || tree.contains(object.path) else { continue }
            let bytes = try read(object, sha256: id)
            guard let document = try? JSONDecoder().decode(ReleaseDocument.self, from: Data(bytes)) else {
                throw StoreError(.invalidInput, "The tree's release \(id) is not a release document")
            }
            if let problem = document.problem ?? ImportLimits.problem(of: document) {
                throw StoreError(.invalidInput, "The tree's release \(id) is refused: \(problem)")
            }
            releases.append((id, bytes, document))
            if let parent = document.parent { next.append(parent) }
        }
        releases.sort { $0.document.number < $1.document.number }
        for (earlier, later) in zip(releases, releases.dropFirst()) where earlier.document.number == later.document.number {
            throw StoreError(.invalidInput, "The tree holds two releases numbered \(later.document.number): it mixes two origins")
        }
        return releases
    }

    /// The channel each release is recorded as published to: the first channel whose document
    /// names it, or names a release made from it.
    private static func channels(
        of releases: [(id: String, bytes: [UInt8], document: ReleaseDocument)],
        named documents: [ChannelDocument]
    ) -> [String: String] {
        var channelOf: [String: String] = [:]
        for document in documents.sorted(by: { $0.channel < $1.channel }) {
            for id in document.namedReleases where channelOf[id] == nil { channelOf[id] = document.channel }
        }
        for release in releases.reversed() {
            if let parent = release.document.parent, channelOf[parent] == nil { channelOf[parent] = channelOf[release.id] }
        }
        return channelOf
    }

    /// Places the files `entry` lists from the tree in the store: the content, its gzip
    /// variant, its brotli and zstd variants (recorded with the version), its block index and
    /// pack (recorded), each patch the tree holds; returns the patches it does not.
    private func placeFiles(of entry: ReleaseEntry, catalog: Catalog) async throws -> [(from: String, to: String)] {
        let sha256 = entry.sha256
        try place(try .blob(sha256), as: sha256)
        if entry.gzip != nil { try place(try .gzip(of: sha256), as: "\(sha256).gz") }
        if let brotli = entry.brotli { try place(try .brotli(of: sha256), as: brotli.sha256) }
        if let zstd = entry.zstd { try place(try .zstd(of: sha256), as: zstd.sha256) }
        if let blocks = entry.blocks {
            try place(try .blockIndex(of: sha256), as: blocks.sha256)
            let pack = try TreeObject.blockPack(of: sha256)
            guard let bytes = try tree.read(pack.path) else { throw StoreError(.invalidInput, "The tree lacks \(pack.path)") }
            let packed = Hex.string(SHA256.hash(data: bytes))
            try place(pack, as: packed)
            try await Maintenance(catalog).importBlockIndex(
                of: sha256,
                index: (blocks.sha256, blocks.size),
                packed: (packed, Int64(bytes.count)),
                at: now.secondsSince1970
            )
        }
        var unheld: [(from: String, to: String)] = []
        for patch in entry.patches ?? [] {
            let object = try TreeObject.delta(from: patch.from, to: sha256)
            if try tree.contains(object.path) {
                try place(object, as: patch.sha256)
            } else {
                unheld.append((patch.from, sha256))
            }
        }
        return unheld
    }

    /// The patches of a release's documents from its parent's that the tree holds: the release
    /// document's and each changed page's, as the origin makes them. Both documents were read
    /// and checked already; only the patches are read here.
    private func documentPatches(
        of release: Maintenance.ImportedRelease,
        parent: (id: String, document: ReleaseDocument)
    ) throws -> [BlobIndex.DocumentDeltaRecord] {
        let pages = Dictionary(release.pages.map { ($0.sha256, $0.bytes) }) { first, _ in first }
        var pairs = [(source: parent.id, target: release.id, targetBytes: release.bytes)]
        for (page, base) in release.document.pageBases(from: parent.document) {
            if let bytes = pages[page] { pairs.append((base, page, bytes)) }
        }
        return try pairs.compactMap { pair in
            let object = try TreeObject.delta(from: pair.source, to: pair.target)
            guard let patch = try tree.read(object.path) else { return nil }
            let fullSize = try pair.targetBytes.withUnsafeBytes { try Gzip.compress($0).count }
            return BlobIndex.DocumentDeltaRecord(source: pair.source, target: pair.target, patch: patch, fullSize: fullSize)
        }
    }

    /// The data folder's folder of roots, for `channels.rootDirectory` (not the tree's `roots/`,
    /// whose layout ``DepotManifest/TreeObject`` owns).
    static let rootFolder = "roots"

    /// Copies the tree's roots, 1, 2… for as long as they follow one another, into `roots/` of
    /// the data folder as `{n}.root.json`: what `channels.rootDirectory` of the rebuilt origin
    /// holds.
    private func copyRoots() throws -> Int {
        var version: Int64 = 1
        while try tree.contains(try TreeObject.root(version).path) {
            try staging.place(try TreeObject.root(version).path, from: tree, at: "\(Self.rootFolder)/\(version).root.json")
            version += 1
        }
        return Int(version - 1)
    }

    /// The document `object`, which must have the SHA-256 `sha256`.
    private func read(_ object: TreeObject, sha256: String) throws -> [UInt8] {
        guard let bytes = try tree.read(object.path) else { throw StoreError(.invalidInput, "The tree lacks \(object.path)") }
        guard Hex.string(SHA256.hash(data: bytes)) == sha256 else {
            throw StoreError(.invalidInput, "The tree's \(object.path) does not have the SHA-256 it is named by")
        }
        return bytes
    }

    /// Links the tree's `object` into the store as the blob file `name`.
    private func place(_ object: TreeObject, as name: String) throws {
        guard try tree.contains(object.path) else { throw StoreError(.invalidInput, "The tree lacks \(object.path)") }
        let target = DataBackup.path(of: name)
        guard try !staging.contains(target) else { return }
        try staging.place(object.path, from: tree, at: target)
    }
}
