import DepotManifest
import DepotSigning
import Foundation

extension TreeReader {
    /// The trust `document` is checked under (by ``ChannelCheck``), after the roots it needs
    /// are walked (``RootWalk``); `verified` gets each root that passed, to keep, and `held`
    /// gives a root the caller holds already (checked all the same).
    ///
    /// For a client (`fromFirstRoot` false): under a trusted root, when the document names a
    /// newer one, the source's roots from the trusted one to it; the newest is the trust.
    ///
    /// For a mirror (`fromFirstRoot`), which serves every root to clients holding any older
    /// one: the chain from root 1, which must be well-formed, and must pass through the trusted
    /// root exactly; without a trusted root it must hold together, at most
    /// ``maximumUnanchoredRoots`` long, and the trust stays what it is. As each step needs the
    /// previous root's keys, what a walk fetches is bounded by the genuine chain, however high
    /// a version a document names.
    func trust(
        for document: ChannelDocument,
        under trust: ChannelCheck.Trust,
        fromFirstRoot: Bool,
        held: (TreeObject) throws -> [UInt8]? = { _ in nil },
        verified: (RootDocument, [UInt8]) throws -> Void
    ) async throws -> ChannelCheck.Trust {
        guard let version = document.root, version >= 1 else { return trust }
        func fetch(_ object: TreeObject) async throws -> [UInt8]? {
            if let bytes = try held(object) { return bytes }
            switch try await source.fetch(object, maximumBytes: RootWalk.maximumRootBytes, ifNoneMatch: nil) {
            case .found(let bytes, _): return bytes
            case .missing: return nil
            case .status(let status):
                throw SyncError(.server, "the channel document names root \(version), but \(source.location(of: object)) answered \(status)")
            case .notModified: throw TreeAnswer.notModified.refusal(of: object, at: source.location(of: object))
            }
        }
        do {
            guard fromFirstRoot else {
                guard case .root(let root) = trust, version > root.version else { return trust }
                return .root(try await RootWalk.walk(from: root, to: version, fetch: fetch, verified: verified))
            }
            let firstObject = try TreeObject.root(1)
            guard let firstBytes = try await fetch(firstObject),
                let first = try? JSONDecoder().decode(RootDocument.self, from: Data(firstBytes))
            else {
                throw SyncError(.untrusted, "the channel document names root \(version), but the source has no valid \(firstObject.url)")
            }
            try first.checkFirst()
            try verified(first, firstBytes)
            switch trust {
            case .root(let shipped):
                let reached = try await RootWalk.walk(from: first, to: shipped.version, fetch: fetch, verified: verified)
                guard reached == shipped else { throw SyncError(.untrusted, "the source's roots do not descend from the trusted root") }
                return .root(try await RootWalk.walk(from: shipped, to: version, fetch: fetch, verified: verified))
            case .keys, .none:
                guard version <= Self.maximumUnanchoredRoots else {
                    throw SyncError(
                        .untrusted,
                        "the channel document names root \(version); without a trusted root at most \(Self.maximumUnanchoredRoots) are followed"
                    )
                }
                _ = try await RootWalk.walk(from: first, to: version, fetch: fetch, verified: verified)
                return trust
            }
        } catch let failure as RootWalk.Failure {
            throw SyncError(failure.kind == .corrupt ? .corrupt : .untrusted, failure.message)
        } catch let problem as RootDocument.Problem {
            throw SyncError(.untrusted, "root 1 is refused: \(problem.message)")
        } catch let problem as TreeObject.Problem {
            throw SyncError(.corrupt, problem.message)
        }
    }
}
