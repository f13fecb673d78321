import DepotManifest

/// Where a Depot tree is read from: the only part of a fetch that differs between
/// `DepotClient` (URLSession, ``SessionSource``) and `depot mirror` (AsyncHTTPClient). What is
/// asked for and what is believed are ``TreeReader``'s.
public protocol TreeSource: Sendable {
    /// The source, for messages: its base URL.
    var name: String { get }

    /// Answers a `GET` of `object`'s URL, with `If-None-Match: ifNoneMatch` when given.
    ///
    /// - Throws: ``SyncError``: `.corrupt` when the body is longer than `maximumBytes` (the
    ///   transfer is stopped there), `.network` when the transfer fails.
    func fetch(_ object: TreeObject, maximumBytes: Int, ifNoneMatch: String?) async throws -> TreeAnswer
}

/// A source's answer to a `GET` of an object of the tree.
public enum TreeAnswer: Sendable, Equatable {
    /// 200: the body, whole, and the answer's `ETag`.
    case found([UInt8], entityTag: String?)
    /// 304, to a request with `If-None-Match`.
    case notModified
    /// 404: the source has no such object.
    case missing
    /// Any other status.
    case status(Int)

    /// Why this answer to a `GET` of `object` is not taken: a 304 to a request without
    /// `If-None-Match`, or a status other than 200 and 404 (``SyncError`` `.server`).
    public func refusal(of object: TreeObject) -> SyncError {
        switch self {
        case .notModified: SyncError(.server, "\(object.url) answered 304 to a request without If-None-Match")
        case .status(let status): SyncError(.server, "\(object.url) answered \(status)")
        case .found: SyncError(.server, "\(object.url) answered 200")
        case .missing: SyncError(.server, "\(object.url) answered 404")
        }
    }
}
