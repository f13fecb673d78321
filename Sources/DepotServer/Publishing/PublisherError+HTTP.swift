import DepotStore
import HTTPTypes
import Hummingbird

/// The HTTP edge of ``PublisherError``: each code's status, and the same short JSON body as
/// Hummingbird's `HTTPError` (`{"error":{"message":…}}`), so a refusal reads the same from
/// every route.
extension PublisherError: HTTPResponseError {
    /// The status each code answers with.
    static func status(of code: Code) -> HTTPResponse.Status {
        switch code {
        case .invalid: .badRequest
        case .missingContent: .unprocessableContent
        case .notFound: .notFound
        case .conflict: .conflict
        case .gone: .gone
        case .bug: .internalServerError
        }
    }

    var status: HTTPResponse.Status { Self.status(of: code) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try HTTPError(status, message: message).response(from: request, context: context)
    }
}

extension CatalogError {
    /// The ``PublisherError`` a refused change is; `nil` for a failure of the server's own.
    var publisherError: PublisherError? {
        switch code {
        case .invalid: PublisherError(.invalid, message)
        case .conflict, .moved: PublisherError(.conflict, message)
        case .notFound: PublisherError(.notFound, message)
        case .gone: PublisherError(.gone, message)
        default: nil
        }
    }
}

/// Runs a catalog change, turning the refusals of ``CatalogError`` into ``PublisherError``s.
func refusingBadChanges<T>(_ change: () async throws -> T) async throws -> T {
    do {
        return try await change()
    } catch let error as CatalogError {
        throw error.publisherError ?? error
    }
}
