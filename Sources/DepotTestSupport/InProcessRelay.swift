import Foundation
import HTTPTypes
import NIOCore
import Synchronization

/// A host in front of an in-process server (``InProcessHost``) that passes each request on and
/// injects the faults a network, a proxy or a hostile mirror would: it cuts the next `/blobs/`
/// (or `/packs/`) response short, trickles the responses to a path, alters a byte of the bodies
/// of some responses, and drops the `Range` of requests for several ranges, as a proxy or CDN
/// that refuses them does (the server then answers 200 with everything). No socket.
package final class InProcessRelay: InProcessHost {
    /// `http://host` (no trailing slash), the host a `DepotClient` reaches it at.
    package let base: String
    private let upstream: String
    private struct Faults {
        var cutAfter: Int?
        var trickle: (pathPrefix: String, bytes: Int, interval: Duration)?
        var tamper: String?
        var dropsMultipleRanges = false
    }
    private let faults = Mutex(Faults())
    /// The request lines relayed so far (`GET /blobs/…`).
    private let requestLines = Mutex<[String]>([])

    private init(base: String, upstream: String) {
        self.base = base
        self.upstream = upstream
    }

    /// The body byte a tampering relay alters (counted from 0).
    package static let tamperedOffset = 300

    /// What a tampering relay makes of that byte.
    package static func tampered(_ byte: UInt8) -> UInt8 { byte ^ 0x20 }

    /// Whether a `Range` field's value asks for several ranges: the field the relay drops.
    package static func asksForSeveralRanges(_ range: some StringProtocol) -> Bool {
        range.contains(",")
    }

    /// Runs a relay in front of `server`, `body`, and stops it.
    package static func with<Result>(in front: some TestServer, _ body: (InProcessRelay) async throws -> Result) async throws -> Result {
        try await InProcessURLProtocol.serving(making: { InProcessRelay(base: $0, upstream: front.url("")) }, body)
    }

    /// `path` on the relay, as a `DepotClient` reaches it.
    package func url(_ path: String) -> String { base + path }

    /// The next response to a `/blobs/` (or `/packs/`) request ends after `bytes` bytes of its
    /// body: the connection is lost.
    package func cutNextBlobResponse(after bytes: Int) {
        faults.withLock { $0.cutAfter = bytes }
    }

    /// Every later response to a request whose path starts with `pathPrefix` comes `bytes` bytes
    /// each `interval` (nil: none).
    package func trickle(_ pathPrefix: String?, bytes: Int = 1, every interval: Duration = .milliseconds(1)) {
        faults.withLock { $0.trickle = pathPrefix.map { ($0, bytes, interval) } }
    }

    /// Every later response to a request whose target contains `pathPart` has the byte
    /// ``tamperedOffset`` of its body altered (nil: none).
    package func tamper(_ pathPart: String?) {
        faults.withLock { $0.tamper = pathPart }
    }

    /// Whether later requests for several ranges lose their `Range` field.
    package func dropMultipleRanges(_ drops: Bool = true) {
        faults.withLock { $0.dropsMultipleRanges = drops }
    }

    /// How many requests relayed so far have a request line starting with `prefix` (as
    /// `GET /blobs/`).
    package func requests(startingWith prefix: String) -> Int {
        requestLines.withLock { $0.filter { $0.hasPrefix(prefix) }.count }
    }

    package func answer(_ request: InProcessRequest) async throws -> InProcessAnswer {
        requestLines.withLock { $0.append(request.line) }
        let isBlob = request.line.hasPrefix("GET /blobs/") || request.line.hasPrefix("GET /packs/")
        let faults = self.faults.withLock { faults in
            defer { if isBlob { faults.cutAfter = nil } }
            return faults
        }
        var request = request
        if faults.dropsMultipleRanges, let range = request.headers[.range], Self.asksForSeveralRanges(range) {
            request.headers[.range] = nil
        }
        var answer = try await InProcessURLProtocol.exchange(request, at: upstream)
        if let part = faults.tamper, request.target.contains(part) {
            let at = answer.body.readerIndex + Self.tamperedOffset
            if let byte = answer.body.getInteger(at: at, as: UInt8.self), at < answer.body.writerIndex {
                answer.body.setInteger(Self.tampered(byte), at: at)
            }
        }
        if isBlob, let cut = faults.cutAfter {
            answer.delivery = .cut(after: cut)
        } else if let trickle = faults.trickle, request.path.hasPrefix(trickle.pathPrefix) {
            answer.delivery = .trickled(bytes: trickle.bytes, every: trickle.interval)
        }
        return answer
    }
}
