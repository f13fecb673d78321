import DepotStore
import HTTPTypes
import Hummingbird

extension CatalogError {
    /// The client error a refused change answers with; `nil` for a failure of the server's own.
    var httpError: HTTPError? {
        switch code {
        case .invalid: HTTPError(.badRequest, message: message)
        case .conflict, .moved: HTTPError(.conflict, message: message)
        case .notFound: HTTPError(.notFound, message: message)
        case .gone: HTTPError(.gone, message: message)
        default: nil
        }
    }
}

/// Runs a catalog change, turning the refusals of ``CatalogError`` into their HTTP errors.
func refusingBadChanges<T>(_ change: () async throws -> T) async throws -> T {
    do {
        return try await change()
    } catch let error as CatalogError {
        throw error.httpError ?? error
    }
}
