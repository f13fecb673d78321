import DepotStore
import HTTPTypes
import Testing

@testable import DepotServer

/// ``PublisherError`` at the HTTP edge: each code's status, written by hand here, and the
/// catalog's refusals as the publisher's.
@Suite("Publisher errors at the HTTP edge")
struct PublisherErrorTests {
    static let statuses: [(PublisherError.Code, Int)] = [
        (.invalid, 400), (.missingContent, 422), (.notFound, 404), (.conflict, 409), (.gone, 410), (.bug, 500),
    ]

    @Test("each code answers with its status", arguments: statuses)
    func status(code: PublisherError.Code, status: Int) {
        #expect(PublisherError(code, "x").status.code == status)
    }

    @Test("the table names every code")
    func everyCode() {
        #expect(Set(Self.statuses.map(\.0)) == Set(PublisherError.Code.allCases))
    }

    static let catalogCodes: [(CatalogError.Code, PublisherError.Code?)] = [
        (.invalid, .invalid), (.conflict, .conflict), (.moved, .conflict), (.notFound, .notFound), (.gone, .gone), (.unusable, nil),
    ]

    @Test("a catalog's refusal is the publisher's, with its message; a failure of the catalog's own is none", arguments: catalogCodes)
    func catalogRefusal(code: CatalogError.Code, expected: PublisherError.Code?) {
        let error = CatalogError("the message", code: code).publisherError
        #expect(error?.code == expected)
        if expected != nil { #expect(error?.message == "the message") }
    }
}
