/// How requests are logged: one line a request, written when its response has ended
/// (``AccessLogWriter``).
public struct AccessLogConfiguration: Sendable, Equatable {
    /// The line format: `depot` (key=value) or `combined` (NCSA combined, as nginx's default).
    public var format: Format
    /// A file the lines are appended to; `nil`: standard output (the server's other logs go to
    /// standard error; journald takes both).
    public var path: String?
    /// The most bytes of lines held before they are written; a line that finds it full is
    /// dropped and counted (`depot_access_log_dropped_total`).
    public var bufferBytes: Int
    /// How long a line may wait in the buffer, at most.
    public var flushInterval: Duration

    /// The line formats.
    public enum Format: String, Sendable, CaseIterable {
        /// `2026-11-24T11:47:32Z request id=… client=… scheme=… method=… path=… status=… bytes=… ms=…`.
        case depot
        /// NCSA combined: `client - - [24/Nov/2026:11:47:32 +0000] "GET /a.txt HTTP/1.1" 200 3 "referer" "user-agent"`.
        case combined
    }

    public init(format: Format = .depot, path: String? = nil, bufferBytes: Int = 1 << 20, flushInterval: Duration = .milliseconds(500)) {
        self.format = format
        self.path = path
        self.bufferBytes = bufferBytes
        self.flushInterval = flushInterval
    }
}
