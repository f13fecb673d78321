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

    public func respond(to request: Request, resource: Resource, now: HTTPDate) throws -> Response {
        let method: ConditionalRequest.Method
        switch request.method {
        case .get: method = .get
        case .head: method = .head
        default:
            throw HTTPError(.methodNotAllowed, headers: [.allow: "GET, HEAD"], message: "Only GET and HEAD are allowed here")
        }
        let headers = request.headers
        let (plan, coding, variant) = decide(method: method, resource: resource, now: now) { headers[values: $0] }

        // Fields every answer about this resource carries.
        var fields = HTTPFields()
        if resource.gzip != nil { fields[.vary] = "Accept-Encoding" }

        switch plan {
        case .preconditionFailed:
            throw HTTPError(.preconditionFailed, headers: fields, message: "A precondition of the request does not hold")
        case .rangeNotSatisfiable:
            fields[.contentRange] = ContentRange.unsatisfied(completeLength: variant.length)
            fields[.acceptRanges] = "bytes"
            throw HTTPError(.rangeNotSatisfiable, headers: fields, message: "None of the requested ranges lies within the content")
        case .notModified:
            return Response(status: .notModified, headers: coding == .gzip ? resource.notModifiedFields.gzip! : resource.notModifiedFields.identity)
        case .full where method == .head || variant.length == 0:
            return Response(status: .ok, headers: coding == .gzip ? resource.okFields.gzip! : resource.okFields.identity, body: ResponseBody())
        case .full:
            return Response(
                status: .ok,
                headers: coding == .gzip ? resource.okFields.gzip! : resource.okFields.identity,
                body: FileBody.make(
                    storage: variant.storage,
                    segments: [.file(0...(variant.length - 1))],
                    contentLength: variant.length,
                    fileSystem: fileSystem
                )
            )
        case .partial(let range):
            return partialResponse(
                contentRange: ContentRange.satisfied(range, completeLength: variant.length),
                contentType: nil,
                segments: [.file(range)],
                contentLength: range.upperBound - range.lowerBound + 1,
                method: method,
                coding: coding,
                variant: variant,
                resource: resource
            )
        case .multipart(let multipart):
            return partialResponse(
                contentRange: nil,
                contentType: multipart.contentType,
                segments: multipart.parts.flatMap { [.bytes(ByteBuffer(string: $0.header)), .file($0.range)] }
                    + [.bytes(ByteBuffer(string: multipart.trailer))],
                contentLength: multipart.contentLength,
                method: method,
                coding: coding,
                variant: variant,
                resource: resource
            )
        }
    }

    /// A 206: one range (with its `Content-Range`), or several as `multipart/byteranges` (with
    /// that `Content-Type`).
    private func partialResponse(
        contentRange: String?,
        contentType: String?,
        segments: [FileBody.Segment],
        contentLength: Int64,
        method: ConditionalRequest.Method,
        coding: ContentCoding,
        variant: Resource.Variant,
        resource: Resource
    ) -> Response {
        var fields = coding == .gzip ? resource.partialFields.gzip! : resource.partialFields.identity
        if let contentRange { fields[.contentRange] = contentRange }
        if let contentType { fields[.contentType] = contentType }
        fields[.contentLength] = String(contentLength)
        guard method == .get else {
            // HEAD: the same fields as GET, no content.
            return Response(status: .partialContent, headers: fields, body: ResponseBody())
        }
        return Response(
            status: .partialContent,
            headers: fields,
            body: FileBody.make(storage: variant.storage, segments: segments, contentLength: contentLength, fileSystem: fileSystem)
        )
    }

    /// What RFC 9110 requires for a GET or HEAD of `resource`: the plan, the content coding
    /// and the variant it is about. `field` gives a request field's lines; both Hummingbird's
    /// path and ``DirectResponder`` decide here, so they cannot disagree.
    func decide(
        method: ConditionalRequest.Method,
        resource: Resource,
        now: HTTPDate,
        field: (HTTPField.Name) -> [String]
    ) -> (plan: ResponsePlan, coding: ContentCoding, variant: Resource.Variant) {
        let coding = ContentCoding.negotiate(acceptEncoding: field(.acceptEncoding), gzipAvailable: resource.gzip != nil)
        let variant = coding == .gzip ? resource.gzip! : resource.identity
        let conditional = ConditionalRequest(
            method: method,
            ifMatch: field(.ifMatch),
            ifNoneMatch: field(.ifNoneMatch),
            ifModifiedSince: field(.ifModifiedSince),
            ifUnmodifiedSince: field(.ifUnmodifiedSince),
            ifRange: field(.ifRange),
            range: field(.range)
        )
        let validators = RepresentationValidators(
            entityTag: variant.entityTag,
            lastModified: resource.lastModified,
            lastModifiedIsStrong: resource.lastModifiedIsStrong,
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

extension HTTPDate {
    /// The current time.
    public static func now() -> HTTPDate {
        HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970.rounded(.down)))
    }
}
