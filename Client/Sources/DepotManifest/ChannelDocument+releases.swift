extension ChannelDocument {
    /// The releases the document names: its release, its rollout's, its fallbacks'. What an
    /// export or a mirror of the channel holds, each with its parent when there is one: the
    /// release clients most often hold, from which the document patches are made.
    public var namedReleases: [String] {
        [release] + (rollout.map { [$0.release] } ?? []) + (fallbacks ?? []).map(\.release)
    }
}
