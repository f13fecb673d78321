import DepotManifest
import DepotSigning
import Foundation

/// The one walk along a chain of roots, for ``DepotClient`` and `depot mirror` alike: from a
/// root already trusted to the version a channel document names, each next root fetched
/// (bounded), checked against the one before it, and only then handed over to be kept.
///
/// A root that does not follow is refused before anything is kept, so a source that serves
/// forged roots leaves nothing behind; and as each step needs the previous root's keys, what a
/// walk fetches is bounded by the genuine chain, however high a version a document names.
public enum RootWalk {
    /// The largest root document accepted.
    public static let maximumRootBytes = 1 << 20

    /// Why a walk stopped.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// A root that does not follow (``untrusted``), or a source that has not, or cannot
        /// send, the next one.
        public enum Kind: Sendable { case untrusted, missing, corrupt }
        public let kind: Kind
        public let message: String
        public var description: String { message }
    }

    /// Walks from `root` to `version`: for each version after `root`'s, `fetch` gives the
    /// bytes of its ``DepotManifest/TreeObject/root(_:)`` (`nil` when the source has none, at
    /// most ``maximumRootBytes``), which must decode to a root that follows the one before it
    /// (``DepotManifest/RootDocument/checkNext(_:verify:keyID:)``); `verified` then gets it, to
    /// keep. Returns the root of `version` (`root` itself when it is that new already).
    public static func walk(
        from root: RootDocument,
        to version: Int64,
        fetch: (TreeObject) async throws -> [UInt8]?,
        verified: (RootDocument, [UInt8]) throws -> Void
    ) async throws -> RootDocument {
        var root = root
        while root.version < version {
            let object = try TreeObject.root(root.version + 1)
            guard let bytes = try await fetch(object) else {
                throw Failure(kind: .missing, message: "the channel document names root \(version), but the source has no \(object.url)")
            }
            guard bytes.count <= maximumRootBytes, let next = try? JSONDecoder().decode(RootDocument.self, from: Data(bytes)) else {
                throw Failure(kind: .corrupt, message: "\(object.url) is not a root document")
            }
            do {
                try root.checkNext(next)
            } catch {
                throw Failure(kind: .untrusted, message: error.message)
            }
            try verified(next, bytes)
            root = next
        }
        return root
    }
}
