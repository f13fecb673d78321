import Hummingbird

extension HTTPError {
    /// The answer to a request whose work a ``ComputeOnce`` refused as busy: 503 with
    /// `Retry-After`, and one line saying what is being made (`patches`, `packs`).
    static func busy(making what: String) -> HTTPError {
        HTTPError(.serviceUnavailable, headers: [.retryAfter: "10"], message: "Too many \(what) are being made; retry later")
    }
}
