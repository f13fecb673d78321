/// At most `limit` requests a second from each key (a client address): a fixed window of one
/// whole second of a clock the caller reads, so that it is tested with made-up seconds and the
/// server judges it by ``RolloutConfiguration/clock``. Holds one second's keys at most: the
/// window is cleared as a new second begins.
struct PerSecondLimit: Sendable {
    let limit: Int
    private var second: Int64 = .min
    private var counts: [String: Int] = [:]

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a request from `key` in second `now`; whether it is within the limit.
    mutating func admits(_ key: String, now: Int64) -> Bool {
        if second != now {
            second = now
            counts = [:]
        }
        let count = counts[key, default: 0] + 1
        counts[key] = count
        return count <= limit
    }

    /// The keys counted in the current window.
    var keys: Int { counts.count }
}
