import DepotClient
import DepotManifest

/// An answer already read off the wire, given to the client's ``TreeReader`` so that the
/// client's own rules check it (its digest, its signatures, its shape) without a second request.
struct ReadAnswer: TreeSource {
    let name: String
    let answer: TreeAnswer

    func fetch(_ object: TreeObject, maximumBytes: Int, ifNoneMatch: String?) async throws -> TreeAnswer {
        if case .found(let bytes, _) = answer, bytes.count > maximumBytes {
            throw SyncError(.corrupt, "\(location(of: object)) is longer than \(maximumBytes) bytes")
        }
        return answer
    }
}

extension TreeAnswer {
    /// A fleet's answer as the client's reader takes it.
    init(_ answer: HTTPAnswer) {
        switch answer.status {
        case 200: self = .found(answer.body ?? [], entityTag: answer.entityTag)
        case 304: self = .notModified
        case 404: self = .missing
        default: self = .status(answer.status)
        }
    }
}
