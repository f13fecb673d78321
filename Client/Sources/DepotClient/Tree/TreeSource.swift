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

extension TreeSource {
    /// Where `object` is read from, for messages: the source's base URL and the object's path
    /// (`https://cdn.example.com/app/channels/stable`), so that a 404 says which server was
    /// asked.
    public func location(of object: TreeObject) -> String {
        (name.hasSuffix("/") ? String(name.dropLast()) : name) + object.url
    }
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
    /// `If-None-Match`, or a status other than 200 and 404 (``SyncError`` `.server`), naming it
    /// by `location` (``TreeSource/location(of:)``; its path when not given).
    public func refusal(of object: TreeObject, at location: String? = nil) -> SyncError {
        let url = location ?? object.url
        return switch self {
        case .notModified: SyncError(.server, "\(url) answered 304 to a request without If-None-Match")
        case .status(let status): SyncError(.server, "\(url) answered \(status)")
        case .found: SyncError(.server, "\(url) answered 200")
        case .missing: SyncError(.server, "\(url) answered 404")
        }
    }
}
