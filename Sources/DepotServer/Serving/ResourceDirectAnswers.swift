import DepotConnection
import DepotHTTP
import HTTPTypes
import NIOHTTP1

/// The direct answers of ``DirectResponder``: a GET or HEAD of a resource at hand
/// (``ContentResolver/cached(_:)``) whose ``ResourceAnswer`` (the one Hummingbird's path renders
/// too) is a 304, a 200 or a single range. Everything else (refusals, multipart ranges, content
/// not cached, other routes) is left to Hummingbird.
final class ResourceDirectAnswers: DirectAnswerSource {
    let resolver: ContentResolver
    /// The first path segments of Hummingbird's routes (``Router/routedSegments``).
    let routedSegments: Set<Substring>
    let responder: ResourceResponder
    let recorder: ResponseRecorder

    init(resolver: ContentResolver, routedSegments: Set<Substring>, responder: ResourceResponder, recorder: ResponseRecorder) {
        self.resolver = resolver
        self.routedSegments = routedSegments
        self.responder = responder
        self.recorder = recorder
    }

    func answer(to head: HTTPRequestHead, now: HTTPDate) -> DirectAnswer? {
        guard let (target, route, path) = ContentTarget.resolve(requestTarget: head.uri, routedSegments: routedSegments),
            let resource = resolver.cached(target)
        else { return nil }
        let headers = head.headers
        let answer = responder.answer(method: head.method == .HEAD ? .head : .get, resource: resource, now: now) { headers[$0.rawName] }
        guard Self.sends(answer) else { return nil }
        var body: DirectAnswer.Body?
        if case .range(let storage, let range) = answer.body {
            switch storage {
            case .bytes(let bytes): body = .init(content: .bytes(bytes), range: range)
            case .file(let path): body = .init(content: .file(path), range: range)
            }
        }
        return DirectAnswer(
            status: HTTPResponseStatus(statusCode: answer.status.code),
            fields: answer.directFields ?? HTTPHeaders(answer.fields),
            body: body,
            route: route,
            path: path
        )
    }

    func answered(_ head: HTTPRequestHead, with answer: DirectAnswer, contentBytes: Int64, corked: Bool) {
        recorder.record(
            method: head.method.rawValue,
            path: answer.path,
            route: answer.route,
            status: Int(answer.status.code),
            contentBytes: contentBytes,
            by: .direct(corked: corked)
        )
    }

    /// Whether an answer goes out directly: a 304, a 200 or a single range. Refusals carry an
    /// error body and multipart answers several segments: those are Hummingbird's to write.
    static func sends(_ answer: ResourceAnswer) -> Bool {
        guard answer.refusal == nil else { return false }
        if case .parts = answer.body { return false }
        return true
    }
}
