import HTTPTypes
import NIOCore
import Synchronization

/// ``LyingPackMirror`` in process: a host in front of an in-process server that passes on every
/// request but those for a page's brotli pack, whose length it lies about. A `HEAD` says
/// `Content-Length: 1`; a `GET` gets the plain pack's bytes (from the server), which do not
/// decode as brotli, and `surplus` bytes more. It counts the body bytes it sends, by request
/// target, so a test can hold a client's report to them.
package final class InProcessPackMirror: InProcessHost {
    /// `http://host` (no trailing slash), the host a `DepotClient` reaches it at.
    package let base: String
    private let upstream: String
    private let surplus: Int
    /// Each answer sent: its method and target, and its body's bytes.
    private let sent = Mutex<[(method: String, target: String, bytes: Int)]>([])

    private init(base: String, upstream: String, surplus: Int) {
        self.base = base
        self.upstream = upstream
        self.surplus = surplus
    }

    /// Runs a mirror in front of `server`, `body`, and stops it. With a `surplus`, a brotli
    /// pack's answer is that many bytes longer than the plain pack.
    package static func with<Result>(
        in front: some TestServer,
        surplus: Int = 0,
        _ body: (InProcessPackMirror) async throws -> Result
    ) async throws -> Result {
        try await InProcessURLProtocol.serving(making: { InProcessPackMirror(base: $0, upstream: front.url(""), surplus: surplus) }, body)
    }

    /// `path` on the mirror, as a `DepotClient` reaches it.
    package func url(_ path: String) -> String { base + path }

    /// The body bytes sent in answer to `method` requests whose target starts with `prefix`.
    package func bodyBytes(_ method: String = "GET", startingWith prefix: String) -> Int {
        sent.withLock { $0.filter { $0.method == method && $0.target.hasPrefix(prefix) }.reduce(0) { $0 + $1.bytes } }
    }

    /// How many `method` requests with a target starting with `prefix` were answered.
    package func requests(_ method: String, startingWith prefix: String) -> Int {
        sent.withLock { $0.filter { $0.method == method && $0.target.hasPrefix(prefix) }.count }
    }

    package func answer(_ request: InProcessRequest) async throws -> InProcessAnswer {
        var answer: InProcessAnswer
        if let plain = LyingPackMirror.plainPack(of: request.path) {
            if request.method == "HEAD" {
                answer = InProcessAnswer(status: 200, headers: [.contentLength: "1"])
            } else {
                var body = try await InProcessURLProtocol.exchange(InProcessRequest(method: "GET", target: plain), at: upstream).body
                body.writeRepeatingByte(0, count: surplus)
                answer = InProcessAnswer(status: 200, headers: [.contentLength: "\(body.readableBytes)"], body: body)
            }
        } else {
            answer = try await InProcessURLProtocol.exchange(request, at: upstream)
        }
        let bytes = answer.body.readableBytes
        sent.withLock { $0.append((request.method, request.target, bytes)) }
        return answer
    }
}
