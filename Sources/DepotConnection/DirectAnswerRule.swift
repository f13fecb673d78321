import NIOHTTP1

/// Which requests ``DirectResponder`` may answer itself (what it answers is its
/// ``DirectAnswerSource``'s to say): the rule is pure so that it is tested as a table
/// (`DirectAnswerRuleTests`), without a connection.
package enum DirectAnswerRule {
    /// Whether a request may be answered out of Hummingbird's sight: a GET or HEAD over
    /// HTTP/1.1 without a `Connection` field (the connection stays open, as Hummingbird would
    /// keep it), without `Expect` (Hummingbird answers `100-continue`) and without `A-IM`
    /// (RFC 3229 answers are Hummingbird's).
    package static func mayAnswer(_ head: HTTPRequestHead) -> Bool {
        head.version == .http1_1
            && (head.method == .GET || head.method == .HEAD)
            && !head.headers.contains(name: "connection")
            && !head.headers.contains(name: "expect")
            && !head.headers.contains(name: "a-im")
    }
}
