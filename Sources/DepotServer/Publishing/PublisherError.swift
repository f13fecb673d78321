/// Why ``Publisher`` refused a change or could not answer a question about releases: what kind
/// of refusal (``Code``) and a one-line message for the publisher. The domain throws it; the
/// HTTP edge maps each code to a status (``PublisherError/status``).
struct PublisherError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of refusal.
    enum Code: Sendable, Hashable, CaseIterable {
        /// The request does not say what it means: a duration, a path, a plan (400).
        case invalid
        /// The server lacks the content of files the request lists (422).
        case missingContent
        /// What the request names does not exist: a release, a channel's rollout (404).
        case notFound
        /// The change conflicts with the channel's state, or the channel moved meanwhile (409).
        case conflict
        /// What the request names was removed (410).
        case gone
        /// A fault of this server's own code, never of the request (500).
        case bug
    }

    let code: Code
    /// One line for the publisher, as the response's body says it.
    let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { message }
}
