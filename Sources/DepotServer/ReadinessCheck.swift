/// `/readyz`'s verdict, computed at most once per ``interval`` however often it is asked: the
/// route is public, and each computation reads the catalog and creates and removes a file in the
/// store (issue 57). Probes that arrive while a computation runs wait for it and share its
/// verdict; no probe starts a second one.
actor ReadinessCheck {
    /// Ready, or why not (the text a 503 carries).
    enum Verdict: Sendable, Equatable {
        case ready
        case notReady(String)
    }

    let interval: Duration
    private let now: @Sendable () -> Duration
    private let probe: @Sendable () async -> Verdict
    private var last: (verdict: Verdict, at: Duration)?
    private var waiting: [CheckedContinuation<Verdict, Never>]?

    /// - Parameters:
    ///   - interval: how long a verdict is reused.
    ///   - now: a monotonic time (an offset from any fixed instant); tests move it by hand.
    ///   - probe: the computation itself.
    init(interval: Duration, now: @escaping @Sendable () -> Duration, probe: @escaping @Sendable () async -> Verdict) {
        self.interval = interval
        self.now = now
        self.probe = probe
    }

    /// Probes waiting for the computation under way (0 when none runs): for tests that hold a
    /// computation until the others have arrived.
    var waiters: Int { waiting?.count ?? 0 }

    /// The verdict: the last one while it is younger than ``interval``, else a new one (shared
    /// with every probe that asks meanwhile).
    func verdict() async -> Verdict {
        if let last, now() - last.at < interval { return last.verdict }
        if waiting != nil {
            return await withCheckedContinuation { waiting?.append($0) }
        }
        waiting = []
        let verdict = await probe()
        last = (verdict, now())
        let waiters = waiting ?? []
        waiting = nil
        for waiter in waiters { waiter.resume(returning: verdict) }
        return verdict
    }
}
