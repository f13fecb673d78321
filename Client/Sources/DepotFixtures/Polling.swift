/// Calls `attempt` every `interval` until it returns a value, for at most `timeout`; `nil` when
/// it never did.
///
/// `attempt` runs once more after the deadline, before `nil` is returned: a test process
/// starts hundreds of tests at once on a few cores, and a poller kept off the CPU past its
/// deadline must judge what is true when it runs again, not what it saw before it slept.
public func poll<Value>(
    every interval: Duration = .milliseconds(50),
    for timeout: Duration,
    _ attempt: () async throws -> Value?
) async throws -> Value? {
    let deadline = ContinuousClock.now + timeout
    while true {
        let expired = ContinuousClock.now >= deadline
        if let value = try await attempt() { return value }
        if expired { return nil }
        try await Task.sleep(for: interval)
    }
}
