import DepotHTTP
import NIOCore
import NIOHTTP1
import _NIOFileSystem

/// An answer the application gives a connection to write itself, below the application's
/// pipeline: a 304, a 200 or a single range, its fields ready to send.
package struct DirectAnswer {
    /// Where the content lives.
    package enum Content: Sendable {
        /// Held in memory.
        case bytes(ByteBuffer)
        /// A stored file, sent with `sendfile(2)`.
        case file(FilePath)
    }

    /// What follows the head: a range of content (the whole of it for a 200).
    package struct Body {
        package var content: Content
        package var range: ClosedRange<Int64>

        package init(content: Content, range: ClosedRange<Int64>) {
            self.content = content
            self.range = range
        }
    }

    package var status: HTTPResponseStatus
    /// Every field but `Date`, `Server` and `X-Request-Id`, which the connection adds.
    package var fields: HTTPHeaders
    /// What follows the head; `nil` for nothing.
    package var body: Body?
    /// For the record of the answer (``DirectAnswerSource/answered(_:with:contentBytes:corked:)``):
    /// the route's label and the request's path.
    package var route: String
    package var path: String

    package init(
        status: HTTPResponseStatus,
        fields: HTTPHeaders,
        body: Body?,
        route: String,
        path: String
    ) {
        self.status = status
        self.fields = fields
        self.body = body
        self.route = route
        self.path = path
    }
}

/// What a connection's direct answers come from: the application decides (the catalog, its
/// caches and RFC 9110's rules are its business), the connection writes. The connection layer
/// knows nothing of the catalog. A class, so that each call is through one reference, with no
/// existential box to copy on every request.
package protocol DirectAnswerSource: AnyObject, Sendable {
    /// The answer to `head`, a request ``DirectAnswerRule/mayAnswer(_:)`` admits, or `nil` to
    /// leave it to the application's pipeline.
    func answer(to head: HTTPRequestHead, now: HTTPDate) -> DirectAnswer?

    /// Told once `answer` is written to the connection, with the content bytes it carried and
    /// whether the connection was corked while its file went out.
    func answered(_ head: HTTPRequestHead, with answer: DirectAnswer, contentBytes: Int64, corked: Bool)
}
