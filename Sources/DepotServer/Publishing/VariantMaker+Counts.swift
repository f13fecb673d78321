extension VariantMaker {
    /// How much work was done: what tests and the log read (``VariantMaker/done``).
    struct Counts: Sendable, Equatable {
        /// Encodings run (one a coding a content).
        var encoded = 0
        /// Contents whose samples said no encoding would pay.
        var sampledOut = 0
        /// Requests refused because the queue was full.
        var refused = 0
        /// The most contents ever waiting at once.
        var mostPending = 0
    }
}
