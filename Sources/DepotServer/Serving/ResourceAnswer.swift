import DepotHTTP
import HTTPTypes
import NIOCore
import NIOHTTP1

/// The answer to a GET or HEAD of a ``Resource``, before any channel: status, fields and what
/// the body is. ``ResourceResponder/answer(method:resource:now:field:)`` makes it, where the
/// status and header rules of a resource's answer live; Hummingbird's path and
/// ``DirectResponder`` only adapt it to their channel. (A patch instead of the resource, RFC
/// 3229's 226, is ``DeltaEncoding``'s answer.)
struct ResourceAnswer {
    /// What follows the head.
    enum Body {
        /// Nothing: a HEAD, a 304, an empty representation, a refusal.
        case none
        /// One range of the variant's content (the whole of it for a 200).
        case range(Resource.Storage, ClosedRange<Int64>)
        /// A `multipart/byteranges` body: ranges of the variant's content and the literal part
        /// headers between them, `length` bytes in all.
        case parts(Resource.Storage, [FileBody.Segment], length: Int64)
    }

    let status: HTTPResponse.Status
    let fields: HTTPFields
    let body: Body
    /// For a refusal (412, 416), what went wrong, for the error body.
    let refusal: String?
    /// `fields` in NIO's form when they are a resource's pre-rendered set as they are (a 304,
    /// a whole 200): ``DirectResponder`` sends them without a conversion.
    let directFields: HTTPHeaders?

    init(status: HTTPResponse.Status, fields: HTTPFields, body: Body = .none, refusal: String? = nil, directFields: HTTPHeaders? = nil) {
        self.status = status
        self.fields = fields
        self.body = body
        self.refusal = refusal
        self.directFields = directFields
    }

    /// Renders the RFC 9110 `plan` for `variant` of `resource`, chosen by `coding`.
    init(plan: ResponsePlan, coding: ContentCoding, variant: Resource.Variant, resource: Resource, method: ConditionalRequest.Method) {
        let fields = resource.fields(for: coding)
        let sendsContent = method == .get
        switch plan {
        case .preconditionFailed:
            self.init(status: .preconditionFailed, fields: fields.vary, refusal: "A precondition of the request does not hold")
        case .rangeNotSatisfiable:
            var refused = fields.vary
            refused[.contentRange] = ContentRange.unsatisfied(completeLength: variant.length)
            refused[.acceptRanges] = "bytes"
            self.init(status: .rangeNotSatisfiable, fields: refused, refusal: "None of the requested ranges lies within the content")
        case .notModified:
            self.init(status: .notModified, fields: fields.notModified, directFields: fields.directNotModified)
        case .full:
            let body: Body =
                sendsContent && variant.length > 0 ? .range(variant.storage, 0...(variant.length - 1)) : .none
            self.init(status: .ok, fields: fields.ok, body: body, directFields: fields.directOK)
        case .partial(let range):
            var partial = fields.partial
            partial[.contentRange] = ContentRange.satisfied(range, completeLength: variant.length)
            partial[.contentLength] = String(range.count)
            self.init(
                status: .partialContent,
                fields: partial,
                body: sendsContent ? .range(variant.storage, range) : .none
            )
        case .multipart(let multipart):
            var partial = fields.partial
            partial[.contentType] = multipart.contentType
            partial[.contentLength] = String(multipart.contentLength)
            let segments: [FileBody.Segment] =
                multipart.parts.flatMap { [.bytes(ByteBuffer(string: $0.header)), .file($0.range)] } + [.bytes(ByteBuffer(string: multipart.trailer))]
            self.init(
                status: .partialContent,
                fields: partial,
                body: sendsContent ? .parts(variant.storage, segments, length: multipart.contentLength) : .none
            )
        }
    }
}
