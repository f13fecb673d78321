import NIOHTTP1

/// Which requests ``DirectResponder`` answers itself, and which answers it sends: the rule is
/// pure so that it is tested as a table (`DirectAnswerRuleTests`), without a connection.
enum DirectAnswerRule {
    /// Whether a request may be answered out of Hummingbird's sight: a GET or HEAD over
    /// HTTP/1.1 without a `Connection` field (the connection stays open, as Hummingbird would
    /// keep it), without `Expect` (Hummingbird answers `100-continue`) and without `A-IM`
    /// (RFC 3229 answers are Hummingbird's).
    static func mayAnswer(_ head: HTTPRequestHead) -> Bool {
        head.version == .http1_1
            && (head.method == .GET || head.method == .HEAD)
            && !head.headers.contains(name: "connection")
            && !head.headers.contains(name: "expect")
            && !head.headers.contains(name: "a-im")
    }

    /// Whether an answer goes out directly: a 304, a 200 or a single range. Refusals carry an
    /// error body and multipart answers several segments: those are Hummingbird's to write.
    static func sends(_ answer: ResourceAnswer) -> Bool {
        guard answer.refusal == nil else { return false }
        if case .parts = answer.body { return false }
        return true
    }
}
