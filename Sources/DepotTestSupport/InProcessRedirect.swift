import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A redirect answered in process (``InProcessURLProtocol``), put to the task's session's
/// delegate as URLSession's own HTTP protocol puts it: the delegate follows it (the request it
/// returns) or refuses it (nil: the redirect itself is the answer).
///
/// swift-corelibs-foundation's protocol client traps on `urlProtocol(_:wasRedirectedTo:…)`, and a
/// task does not say its session, so the session is read from the task's stored properties.
enum InProcessRedirect {
    /// The request that follows `head`, the answer to `request`, as `task`'s session delegate
    /// decides; nil when `head` is no redirect, or it is refused.
    static func follow(_ head: HTTPURLResponse, of request: URLRequest, task: URLSessionTask?) async -> URLRequest? {
        guard [301, 302, 303, 307, 308].contains(head.statusCode), let location = head.value(forHTTPHeaderField: "Location"),
            let url = URL(string: location, relativeTo: request.url)?.absoluteURL
        else { return nil }
        var proposed = request
        proposed.url = url
        if head.statusCode == 303 || (head.statusCode <= 302 && request.httpMethod == "POST") {
            proposed.httpMethod = "GET"
            proposed.httpBody = nil
        }
        guard let task, let session = session(of: task), let delegate = session.delegate as? any URLSessionTaskDelegate else { return proposed }
        let asked = Asked(session: session, task: task, delegate: delegate, head: head, proposed: proposed)
        return await withCheckedContinuation { continuation in
            session.delegateQueue.addOperation { asked.ask { continuation.resume(returning: $0) } }
        }
    }

    /// The session `task` belongs to (read from its stored properties: a task does not say it).
    static func session(of task: URLSessionTask) -> URLSession? {
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == "session" }) {
                return child.value as? URLSession
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// The delegate's question, handed to its queue (none of its parts is `Sendable`).
    private struct Asked: @unchecked Sendable {
        let session: URLSession
        let task: URLSessionTask
        let delegate: any URLSessionTaskDelegate
        let head: HTTPURLResponse
        let proposed: URLRequest

        func ask(_ answer: @escaping @Sendable (URLRequest?) -> Void) {
            #if canImport(FoundationNetworking)
            delegate.urlSession(session, task: task, willPerformHTTPRedirection: head, newRequest: proposed, completionHandler: answer)
            #else
            delegate.urlSession?(session, task: task, willPerformHTTPRedirection: head, newRequest: proposed, completionHandler: answer)
            #endif
        }
    }
}
