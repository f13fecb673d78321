import Crypto
import DepotHTTP
import DepotManifest
import DepotSigning
import Foundation

/// The one checked path from a source to the documents of a Depot tree, for `DepotClient` and
/// `depot mirror` alike; only the transport (``TreeSource``) differs.
///
/// Nothing a source sends is believed before it passes: a channel document must decode (its
/// signature is ``ChannelCheck``'s), a root must follow the one before it (``RootWalk``), a
/// release or page document must have the SHA-256 that names it, a patch must make exactly the
/// document it names from a base already checked. Every body is bounded before it is read: the
/// sizes come from these limits, never from the source.
public struct TreeReader<Source: TreeSource>: Sendable {
    /// The largest channel document accepted.
    public static var maximumChannelBytes: Int { 64 * 1024 }

    /// The most roots a mirror follows from root 1 without a trusted root to anchor them
    /// (``checkedChannel(_:ifNoneMatch:trust:fromFirstRoot:held:now:lastAccepted:)``).
    public static var maximumUnanchoredRoots: Int64 { 1000 }

    public let source: Source
    /// The largest release or page document, or patch, accepted.
    public let maximumDocumentBytes: Int

    public init(source: Source, maximumDocumentBytes: Int) {
        self.source = source
        self.maximumDocumentBytes = maximumDocumentBytes
    }

    /// What a poll of a channel found.
    enum ChannelPoll: Sendable {
        /// 304: the document asked about with `If-None-Match` is current.
        case notModified
        /// The document, decoded (its signature not yet checked), its bytes and its `ETag`.
        case document(ChannelDocument, bytes: [UInt8], entityTag: String?)
    }

    /// The channel document `channel`, asked for with `If-None-Match: ifNoneMatch` when given.
    func poll(_ channel: String, ifNoneMatch: String?) async throws -> ChannelPoll {
        let object = try Self.named { try TreeObject.channel(channel) }
        switch try await source.fetch(object, maximumBytes: Self.maximumChannelBytes, ifNoneMatch: ifNoneMatch) {
        case .notModified where ifNoneMatch != nil:
            return .notModified
        case .found(let bytes, let entityTag):
            guard let document = try? JSONDecoder().decode(ChannelDocument.self, from: Data(bytes)) else {
                throw SyncError(.corrupt, "the channel document \(source.location(of: object)) is not valid")
            }
            return .document(document, bytes: bytes, entityTag: entityTag)
        case .missing:
            throw SyncError(.server, "the channel \(channel) has no release (\(source.location(of: object)) answered 404)")
        case let answer:
            throw answer.refusal(of: object, at: source.location(of: object))
        }
    }

    /// The document `object`, which must have the SHA-256 `sha256`; `nil` when the source has
    /// none. With a `base` (an earlier version of the document, checked), it is first asked for
    /// as a patch from it (``patch(from:to:)``): a few hundred bytes where the document is many
    /// kilobytes; a patch that fails in any way costs that one request, and the whole document
    /// is fetched.
    public func document(_ object: TreeObject, sha256: String, base: (sha256: String, bytes: [UInt8])? = nil) async throws -> [UInt8]? {
        if let base, let made = await patch(from: base, to: sha256)?.made { return made }
        switch try await source.fetch(object, maximumBytes: maximumDocumentBytes, ifNoneMatch: nil) {
        case .found(let bytes, _):
            guard Hex.string(SHA256.hash(data: bytes)) == sha256 else {
                throw SyncError(.corrupt, "\(source.location(of: object)) does not have the SHA-256 its name says")
            }
            return bytes
        case .missing:
            return nil
        case let answer:
            throw answer.refusal(of: object, at: source.location(of: object))
        }
    }

    /// The patch `/deltas/{base}/{target}` as the source serves it, with the document it makes,
    /// when it makes exactly `target` from `base` (checked) within ``maximumDocumentBytes``;
    /// `nil` when the source has none, or one that does not.
    public func patch(from base: (sha256: String, bytes: [UInt8]), to target: String) async -> (patch: [UInt8], made: [UInt8])? {
        guard let object = try? TreeObject.delta(from: base.sha256, to: target),
            case .found(let patch, _)? = try? await source.fetch(object, maximumBytes: maximumDocumentBytes, ifNoneMatch: nil),
            let made = try? DeltaPatch.apply(Data(patch), to: Data(base.bytes), maximumSize: maximumDocumentBytes),
            Hex.string(SHA256.hash(data: made)) == target
        else { return nil }
        return (patch, Array(made))
    }

    /// The release document `id`, decoded and checked (``DepotManifest/ReleaseDocument/problem``),
    /// with its bytes; asked for as a patch from `base` when given. `nil` when the source has
    /// none (a parent past the origin's retention).
    public func release(_ id: String, base: (sha256: String, bytes: [UInt8])? = nil) async throws -> (ReleaseDocument, [UInt8])? {
        guard let bytes = try await document(try Self.named { try TreeObject.release(id) }, sha256: id, base: base) else { return nil }
        guard let release = try? JSONDecoder().decode(ReleaseDocument.self, from: Data(bytes)), release.problem == nil else {
            throw SyncError(.corrupt, "the release \(id) is not a release document this client reads")
        }
        return (release, bytes)
    }

    /// The page document `sha256`, decoded and checked (``DepotManifest/ReleasePage/problem``:
    /// every entry's path, hashes and sizes), with its bytes; asked for as a patch from `base`
    /// when given.
    public func page(_ sha256: String, base: (sha256: String, bytes: [UInt8])? = nil) async throws -> (ReleasePage, [UInt8]) {
        let object = try Self.named { try TreeObject.page(sha256) }
        guard let bytes = try await document(object, sha256: sha256, base: base) else {
            throw SyncError(.server, "\(source.location(of: object)) answered 404")
        }
        guard let page = try? JSONDecoder().decode(ReleasePage.self, from: Data(bytes)) else {
            throw SyncError(.corrupt, "the page \(sha256) is not valid")
        }
        if let problem = page.problem { throw SyncError(.corrupt, "the page \(sha256) is refused: \(problem)") }
        return (page, bytes)
    }

    /// The object a name read from a document makes, or ``SyncError`` `.corrupt`.
    static func named(_ make: () throws -> TreeObject) throws -> TreeObject {
        do {
            return try make()
        } catch let problem as TreeObject.Problem {
            throw SyncError(.corrupt, problem.message)
        }
    }
}
