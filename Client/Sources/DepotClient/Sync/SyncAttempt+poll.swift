import DepotManifest
import DepotPolicy
import Foundation

/// What a poll of the channel found (``SyncAttempt/poll(_:)``).
enum Poll {
    /// A 304: the document held answers, checked again against what is trusted now, and still
    /// names the release held for this install (else the poll is a ``newRelease(_:)``).
    case notModified(SyncReport)
    /// A new document that names the release held: the state to keep, with the document.
    case sameRelease(SyncReport, SyncState)
    /// A new document that names another release.
    case newRelease(NewChannel)
}

/// A verified channel document naming a release the folder does not hold, and this install's
/// side of it.
struct NewChannel {
    let document: ChannelDocument
    let entityTag: String?
    let side: RolloutSide
    /// The report so far: the signature, the rollout side.
    let report: SyncReport
    /// The release the folder would hold.
    let next: HeldRelease
}

extension SyncAttempt {
    /// Polls the channel with `If-None-Match` when the document held may answer for it, and
    /// checks what comes (``TreeReader/checkedChannel``): signature, expiry, serial. Keeps the
    /// newest root walked; drops a staged download the channel no longer names.
    func poll(_ start: SyncStart) async throws -> Poll {
        let (configuration, held) = (context.configuration, start.held)
        let trust = try context.trust()
        let now = context.now()
        // A 304 answers for the document held, so one is asked for only when that document is
        // held to be checked again: a cache or mirror that answers 304 forever cannot keep the
        // client on a document past its expiry, nor on one signed by a key no longer trusted.
        let revalidates: Bool
        if case .none = trust { revalidates = held != nil } else { revalidates = held != nil && start.state.channel != nil }
        let checked = try await reader.checkedChannel(
            configuration.channel,
            ifNoneMatch: revalidates ? start.state.channelETag : nil,
            trust: trust,
            fromFirstRoot: false,
            now: now,
            lastAccepted: start.state.floor(of: configuration.channel)
        )
        var report = SyncReport(channelNotModified: checked == nil, documentBytes: source.received.total, release: start.state.release, files: [])
        report.unchangedCount = Int(held?.files ?? 0)
        guard let checked else {
            guard let document = start.state.channel else { return .notModified(report) }
            let signature = try ChannelCheck.check(document, channel: configuration.channel, trust: trust, now: now, lastAccepted: nil)
            report.signature = signature
            // The side is chosen again from the document held: what decides it (the app's
            // version, the install id) may have changed since, though the document has not.
            let side = try context.rolloutSide(of: document, holding: held?.id)
            report.rollout = side
            guard let held, side.release != held.id, !start.state.refuses(side.release) else { return .notModified(report) }
            try context.dropStaged(unless: side.release)
            let next = HeldRelease(side: side, of: document, signature: signature, trust: trust, held: held)
            return .newRelease(NewChannel(document: document, entityTag: start.state.channelETag, side: side, report: report, next: next))
        }
        // The newest root walked is kept, for the next sync.
        if let newest = checked.roots.last { try context.folder.replace(.root, with: newest.bytes) }
        let document = checked.document
        report.signature = checked.signature
        let side = try context.rolloutSide(of: document, holding: held?.id)
        report.rollout = side
        try context.dropStaged(unless: side.release)
        let release = HeldRelease(side: side, of: document, signature: checked.signature, trust: checked.trust, held: held)
        // The release placed, of whatever channel: a revert may go back to the channel followed before.
        if let placed = start.placed, start.state.refuses(side.release) {
            return start.state.keeping(placed, refusing: release, document: document, entityTag: checked.entityTag, report: report)
        }
        guard let held, side.release == held.id else {
            return .newRelease(
                NewChannel(document: document, entityTag: checked.entityTag, side: side, report: report, next: release)
            )
        }
        report.release = release
        report.documentBytes = source.received.total
        var state = start.state
        state.channel = document
        state.channelETag = checked.entityTag
        state.hold(release)
        return .sameRelease(report, state)
    }

    /// The same release under a new document: a check changes nothing; the other steps keep the
    /// document that named the release (`state`).
    func keep(_ report: SyncReport, state: SyncState) throws -> (SyncReport, UpdatePlan?) {
        guard goal != .check else { return (report, .upToDate(report.release, rollout: report.rollout)) }
        try state.save(in: context.folder)
        return (report, nil)
    }
}

extension HeldRelease {
    /// The release of `side` of `document`, which passed as `signature` under `trust`; its file
    /// count is known only when it is the release `held`.
    init(side: RolloutSide, of document: ChannelDocument, signature: ChannelCheck.SignatureStatus, trust: ChannelCheck.Trust, held: HeldRelease?) {
        self.init(
            id: side.release,
            number: side.number,
            channel: document.channel,
            serial: document.serial,
            root: document.root,
            signers: ChannelCheck.signers(of: document, under: trust).map { $0.sorted() },
            files: held?.id == side.release ? held?.files ?? 0 : 0,
            signature: signature
        )
    }
}

extension SyncContext {
    /// Drops a download staged for another release than `release`: the channel rolled back, or
    /// moved on, and it is not to be applied. Any step that learns it, a check too, drops it.
    func dropStaged(unless release: String) throws {
        // Read once: only a record there, a damaged one too, is removed (a removal is made durable).
        guard let bytes = folder.read(.staged) else { return }
        let staged = try? JSONDecoder().decode(StagedRelease.self, from: Data(bytes))
        guard staged?.journal.state.release?.id != release else { return }
        try discardStaged(staged)
    }
}
