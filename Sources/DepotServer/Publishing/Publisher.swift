import DepotAPI
import DepotConnection
import DepotHTTP
import DepotManifest
import DepotStore
import Hummingbird
import Logging

/// Every change to what a channel serves, in one sequence whatever route asked for it: patches
/// and block indexes for the new content, the catalog's transaction, then, when it changed anything, the patches
/// between documents and the caches, the metric and a log line. The controllers
/// (``PublishController``, ``ReleaseController``) only turn HTTP into these calls and their
/// replies (`DepotAPI`) into HTTP.
struct Publisher: Sendable {
    let releases: ReleaseStore
    let blobs: BlobIndex
    let rollouts: RolloutStore
    let reports: ReportLedger
    let store: BlobStore
    let content: PublishedContent
    let metrics: DepotMetrics
    let configuration: PublishConfiguration
    /// Makes the patches and block index a new version lists.
    let patches: PatchMaker
    /// Where every change is recorded, with who made it.
    let audit: AuditTrail
    /// The time rollouts are judged by (``RolloutConfiguration/clock``).
    var now: @Sendable () -> HTTPDate = { .now() }

    /// Publishes `blob`, received and held by the caller, at `path` of the default channel
    /// (`permit`'s).
    func publish(path: String, blob: BlobRecord, contentType: String, permit: Permit, logger: Logger) async throws -> PublishReply {
        let started = ContinuousClock.now
        let result = try await change(permit, doing: .publish, newContent: [(path, blob)]) {
            let result = try await releases.publish(
                .init(path: path, blob: blob, contentType: contentType, now: .now(), keepVersions: configuration.keepVersions)
            )
            let note = AuditNote("publish", release: result.releaseNumber, serial: result.channelSerial, detail: path)
            return (result, result.unchanged ? nil : [result.version.path], result.unchanged ? nil : note)
        }
        metrics.recordPublish(duration: ContinuousClock.now - started, unchanged: result.unchanged)
        let version = result.version
        logger.info(
            result.unchanged ? "Publish unchanged" : "Published",
            metadata: ["path": "\(version.path)", "version": "\(version.version)", "sha256": "\(version.sha256)"]
        )
        return PublishReply(
            path: version.path,
            version: version.version,
            size: version.size,
            sha256: version.sha256,
            md5: version.md5,
            etag: EntityTag(opaqueTag: version.sha256)!.description,
            gzipSize: version.gzipSize,
            unchanged: result.unchanged,
            serial: result.channelSerial
        )
    }

    /// Takes `path` out of the default channel (`permit`'s); false when it is not published.
    func unpublish(path: String, permit: Permit, logger: Logger) async throws -> Bool {
        let removed = try await change(permit, doing: .publish, newContent: []) {
            let removed = try await releases.unpublish(path: path, now: .now())
            return (removed, removed.map { [$0] }, removed.map { _ in AuditNote("delete", detail: path) })
        }
        if removed != nil { logger.info("Unpublished", metadata: ["path": "\(path)"]) }
        return removed != nil
    }

    /// Commits a release of blobs uploaded before to `permit`'s channel (the one the request
    /// names), all or nothing: 422 when the server lacks the content of a listed file.
    func commit(_ request: CommitRequest, permit: Permit, logger: Logger) async throws -> CommitReply {
        let started = ContinuousClock.now
        let channel = permit.channel
        let listed = request.files ?? []
        // Held before their records are read: collection removes no held blob, nor its gzip
        // variant, so what a record says of the files stays true until the commit is done.
        let held = try await store.holdIfStored(Set(listed.map(\.sha256).filter(ContentAddress.isSHA256)))
        defer { for sha256 in held { store.release(sha256) } }
        let files = try releaseFiles(listed, records: try await blobs.blobRecords(held))
        let deletions = try (request.delete ?? []).map { try LogicalPath.check($0, maxLength: configuration.maxPathLength) }
        try request.checkMarks()
        // Patches for the new content only: a listed file the channel holds already has its own.
        let live = try await releases.liveContent(of: files.map(\.path), channel: channel)
        let newContent = files.filter { live[$0.path] != $0.blob.sha256 }.map { ($0.path, $0.blob) }
        let outcome = try await change(permit, doing: .publish, newContent: newContent) {
            var commit = ReleaseStore.ReleaseCommit(
                channel: channel,
                files: files,
                deletions: deletions,
                replace: request.replace ?? false,
                now: .now(),
                keepVersions: configuration.keepVersions,
                base: request.base
            )
            commit.critical = request.critical ?? false
            commit.minimumClientVersion = request.minimumClientVersion
            commit.message = request.message
            let outcome = try await releases.commit(commit)
            let note = AuditNote(
                "publish",
                release: outcome.release?.number,
                serial: outcome.channelSerial,
                detail: "\(counted(outcome.files.count, "file")) changed, \(outcome.removed.count) removed, "
                    + "\(outcome.release?.files ?? 0) in the release" + (request.message.map { ": \($0)" } ?? "")
            )
            return (outcome, outcome.created ? outcome.files.map(\.path) + outcome.removed : nil, outcome.created ? note : nil)
        }
        metrics.recordPublish(duration: ContinuousClock.now - started, unchanged: !outcome.created)
        logger.info(
            outcome.created ? "Release committed" : "Release unchanged",
            metadata: ["channel": "\(channel)", "release": "\(outcome.release?.number ?? 0)", "files": "\(files.count)"]
        )
        return CommitReply(
            release: outcome.release.map(ReleaseInfo.init),
            created: outcome.created,
            channel: channel,
            serial: outcome.channelSerial,
            files: outcome.files.map { .init(path: $0.path, version: $0.version, size: $0.size, sha256: $0.sha256, gzipSize: $0.gzipSize) },
            unchanged: outcome.unchanged,
            removed: outcome.removed
        )
    }

    /// The release files of a commit's list, from the records of the blobs held.
    ///
    /// - Throws: ``PublisherError``: `missingContent` when the server lacks the content of a
    ///   listed file, `invalid` for a path that is not a logical path.
    private func releaseFiles(_ listed: [CommitRequest.File], records: [String: BlobRecord]) throws -> [ReleaseStore.ReleaseFile] {
        var files: [ReleaseStore.ReleaseFile] = []
        var missing: [String] = []
        for file in listed {
            let path = try LogicalPath.check(file.path, maxLength: configuration.maxPathLength)
            guard let blob = records[file.sha256] else {
                missing.append(file.path)
                continue
            }
            files.append(.init(path: path, blob: blob, contentType: file.contentType ?? MediaType.forPath(path)))
        }
        guard missing.isEmpty else {
            throw PublisherError(
                .missingContent,
                "The server lacks the content of \(missing.count) file(s), upload them first: \(missing.prefix(5).joined(separator: ", "))"
            )
        }
        return files
    }

    /// The newest `limit` releases, newest first.
    func releases(limit: Int) async throws -> ReleaseList {
        ReleaseList(releases: try await releases.releases(limit: limit).map(ReleaseInfo.init))
    }

    /// Every channel and the release it is on.
    func channels() async throws -> ChannelList {
        let channels = try await releases.channels().map {
            ChannelInfo(
                name: $0.name,
                serial: $0.serial,
                updatedAt: HTTPDate(secondsSince1970: $0.updatedAt).imfFixdate,
                release: ReleaseInfo($0.release)
            )
        }
        return ChannelList(channels: channels)
    }

    /// The record of `sha256` when the catalog knows it and the store has its file.
    func storedBlob(_ sha256: String) async throws -> BlobRecord? {
        guard ContentAddress.isSHA256(sha256), let record = try await blobs.blobRecord(sha256: sha256),
            try await store.holdIfStored(sha256)
        else { return nil }
        store.release(sha256)
        return record
    }

    /// Which of `asked` the server lacks, each once, in the order asked.
    func missingBlobs(_ asked: [String]) async throws -> [String] {
        let known = try await blobs.blobRecords(Set(asked))
        let stored = try await store.stored(among: Set(known.keys))
        var missing: [String] = []
        var seen = Set<String>()
        for sha256 in asked where seen.insert(sha256).inserted && !stored.contains(sha256) {
            missing.append(sha256)
        }
        return missing
    }

    /// Makes an uploaded blob's block index (from `index`, if made as it arrived) and requests
    /// its variants (``VariantMaker/prepare(_:)``), then records it for a commit to list: its
    /// upload's lifetime starts once it is ready. The caller received and holds it.
    func recordUpload(_ blob: BlobRecord, index: BlockIndexTap? = nil, logger: Logger) async throws {
        await patches.prepareUpload(blob, index: index)
        try await blobs.recordUpload(blob, now: .now())
        logger.info("Blob uploaded", metadata: ["sha256": "\(blob.sha256)", "size": "\(blob.size)"])
    }

    /// Records blobs uploaded together, received and held by the caller.
    func recordUploads(_ blobs: [BlobRecord], logger: Logger) async throws {
        try await self.blobs.recordUploads(blobs, now: .now())
        logger.info("Blobs uploaded", metadata: ["count": "\(blobs.count)", "bytes": "\(blobs.reduce(0) { $0 + $1.size })"])
    }

    /// What a channel move does.
    enum Move {
        /// Point the channel at a release, by its number or id.
        case promote(release: String)
        /// Point the channel back at the release it was on before.
        case rollback
    }

    /// Re-points `permit`'s channel, with no upload.
    func move(_ move: Move, permit: Permit, logger: Logger) async throws -> MoveReply {
        let channel = permit.channel
        let moved = try await change(permit, doing: .promote, newContent: []) {
            let moved: ReleaseStore.ChannelMove
            let action: String
            switch move {
            case .promote(let release): (moved, action) = (try await releases.promote(release, to: channel, now: .now()), "promote")
            case .rollback: (moved, action) = (try await releases.rollback(channel, now: .now()), "rollback")
            }
            let diff = moved.diff
            let note = AuditNote(action, release: moved.to.number, serial: moved.serial, detail: moved.from.map { "from #\($0.number)" })
            return (moved, diff.added.map(\.path) + diff.changed.map(\.after.path) + diff.removed.map(\.path), note)
        }
        logger.info(
            "Channel moved",
            metadata: ["channel": "\(moved.channel)", "from": "\(moved.from?.number ?? 0)", "to": "\(moved.to.number)", "serial": "\(moved.serial)"]
        )
        return MoveReply(
            channel: moved.channel,
            serial: moved.serial,
            from: moved.from.map(ReleaseInfo.init),
            to: ReleaseInfo(moved.to),
            added: moved.diff.added.count,
            changed: moved.diff.changed.count,
            removed: moved.diff.removed.count,
            rolloutRolledBack: moved.rolloutRolledBack ? true : nil
        )
    }

    /// The one sequence of a change to `permit`'s channel: the block index of each of
    /// `newContent` and patches to it from its earlier versions, then `commit` (the catalog's
    /// transaction, which returns its outcome, the paths it changed, `nil` when it changed
    /// nothing, and what the audit trail records of it, `nil` for nothing), then the patches
    /// between the channel's documents, the caches of the paths changed, and the audit record,
    /// with the channel's serial after the change and the permit's actor.
    ///
    /// Every change goes through here, and nothing gets here without a ``Permit`` for its
    /// `action`: no change skips the scopes' check or the audit trail, and a permit for one
    /// action is no permit for another.
    func change<Outcome>(
        _ permit: Permit,
        doing action: AccessAction,
        newContent: [(path: String, blob: BlobRecord)],
        _ commit: () async throws -> (Outcome, changed: [String]?, audit: AuditNote?)
    ) async throws -> Outcome {
        guard permit.action == action else {
            throw PublisherError(.bug, "A permit to \(permit.action) was given for \(action): a bug in this server")
        }
        let channel = permit.channel
        for (path, blob) in newContent { await patches.prepare(path: path, target: blob) }
        let (outcome, changed, note) = try await refusingBadChanges(commit)
        // Recorded before the documents and caches follow: a failure there leaves the change
        // committed, and so recorded.
        if let note {
            // A delete's or a rollout's outcome carries no serial: read right after (a change
            // racing it may have raised it further).
            var serial = note.serial
            if serial == nil { serial = (try? await releases.channel(named: channel))?.serial }
            await audit.record(permit.actor, note.action, channel: channel, release: note.release, serial: serial, detail: note.detail)
        }
        if let changed {
            await patches.makeDocumentPatches(channel: channel)
            try await content.changed(paths: changed, channel: channel)
        }
        return outcome
    }
}

extension ReleaseInfo {
    init(_ release: ReleaseSummary) {
        self.init(
            id: release.id,
            number: release.number,
            url: TreeObject.url(ofRelease: release.id),
            channel: release.channel,
            createdAt: HTTPDate(secondsSince1970: release.createdAt).imfFixdate,
            files: release.files,
            bytes: release.bytes,
            critical: release.critical ? true : nil,
            minimumClientVersion: release.minimumClientVersion,
            message: release.message
        )
    }
}
