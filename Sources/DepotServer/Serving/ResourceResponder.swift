import DepotHTTP
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import _NIOFileSystem

/// Answers GET and HEAD for a ``Resource``: chooses the variant by `Accept-Encoding`, asks
/// `DepotHTTP` what RFC 9110 requires, and renders that decision.
public struct ResourceResponder: Sendable {
    public let rangeLimits: RangeLimits
    let fileSystem: FileSystem

    public init(rangeLimits: RangeLimits = RangeLimits(), fileSystem: FileSystem = .shared) {
        self.rangeLimits = rangeLimits
        self.fileSystem = fileSystem
    }

    /// Hummingbird's adapter of ``answer(method:resource:now:field:)``: a refusal is thrown as
    /// an `HTTPError` (its body says why), content is streamed with ``FileBody``.
    public func respond(to request: Request, resource: Resource, now: HTTPDate) throws -> Response {
        let method = try Self.method(of: request)
        let headers = request.headers
        let answer = answer(method: method, resource: resource, now: now) { headers[values: $0] }
        if let refusal = answer.refusal { throw HTTPError(answer.status, headers: answer.fields, message: refusal) }
        switch answer.body {
        case .none:
            return Response(status: answer.status, headers: answer.fields, body: ResponseBody())
        case .range(let storage, let range):
            let length = range.upperBound - range.lowerBound + 1
            return Response(
                status: answer.status,
                headers: answer.fields,
                body: FileBody.make(storage: storage, segments: [.file(range)], contentLength: length, fileSystem: fileSystem)
            )
        case .parts(let storage, let segments, let length):
            return Response(
                status: answer.status,
                headers: answer.fields,
                body: FileBody.make(storage: storage, segments: segments, contentLength: length, fileSystem: fileSystem)
            )
        }
    }

    /// The method of `request`, GET or HEAD; any other is refused with 405 and `Allow`. A route
    /// whose lookup may cost work (a pack made, a patch) asks before it.
    static func method(of request: Request) throws -> ConditionalRequest.Method {
        switch request.method {
        case .get: return .get
        case .head: return .head
        default: throw HTTPError(.methodNotAllowed, headers: [.allow: "GET, HEAD"], message: "Only GET and HEAD are allowed here")
        }
    }

    /// The answer to a GET or HEAD of `resource`: what RFC 9110 requires (``decide``), rendered.
    /// `field` gives a request field's lines.
    func answer(method: ConditionalRequest.Method, resource: Resource, now: HTTPDate, field: (HTTPField.Name) -> [String]) -> ResourceAnswer {
        let (plan, coding, variant) = decide(method: method, resource: resource, now: now, field: field)
        return ResourceAnswer(plan: plan, coding: coding, variant: variant, resource: resource, method: method)
    }

    /// What RFC 9110 requires for a GET or HEAD of `resource`: the plan, the content coding
    /// and the variant it is about. `field` gives a request field's lines.
    private func decide(
        method: ConditionalRequest.Method,
        resource: Resource,
        now: HTTPDate,
        field: (HTTPField.Name) -> [String]
    ) -> (plan: ResponsePlan, coding: ContentCoding, variant: Resource.Variant) {
        let coding = ContentCoding.negotiate(acceptEncoding: field(.acceptEncoding), available: resource.encoded.mapValues(\.length))
        let variant = resource.variant(for: coding)
        let conditional = ConditionalRequest(
            method: method,
            ifMatch: field(.ifMatch),
            ifNoneMatch: field(.ifNoneMatch),
            ifModifiedSince: field(.ifModifiedSince),
            ifUnmodifiedSince: field(.ifUnmodifiedSince),
            ifRange: field(.ifRange),
            range: field(.range)
        )
        // Every variant of a resource carries its date, so a date names no one representation:
        // `If-Range` with a date matches only a resource served in identity alone, or a resumed
        // gzip download asked again with another Accept-Encoding would get a range of brotli
        // bytes to splice (issue 57). Entity tags are per representation and need no such rule.
        let validators = RepresentationValidators(
            entityTag: variant.entityTag,
            lastModified: resource.lastModified,
            lastModifiedIsStrong: resource.lastModifiedIsStrong && resource.encoded.isEmpty,
            length: variant.length
        )
        let plan = ResponsePlan.evaluate(
            conditional,
            representation: validators,
            now: now,
            limits: rangeLimits,
            contentType: resource.contentType,
            boundary: Self.makeBoundary()
        )
        return (plan, coding, variant)
    }

    /// 32 random hex digits: a boundary that cannot be predicted, so content cannot be crafted to
    /// contain it.
    static func makeBoundary() -> String {
        let high = UInt64.random(in: .min ... .max)
        let low = UInt64.random(in: .min ... .max)
        return "depot-" + String(high, radix: 16) + String(low, radix: 16)
    }
}

extension HTTPField.Name {
    /// RFC 9530 §3.
    static let reprDigest = Self("Repr-Digest")!
}
