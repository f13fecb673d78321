/// What became of the health reports of an install with reports on
/// (``DepotClient/Configuration/sendsReports``): how many wait undelivered and why, and how many
/// the queue's bound dropped. `depot sync` says it in its summary and `--json`
/// (``SyncReport/reports``); ``DepotClient/reportDelivery()`` reads it at any time.
public struct ReportDelivery: Sendable, Codable, Equatable {
    /// Reports waiting in `.depot/reports.json`: not taken (202) by the report server yet.
    public var queued: Int
    /// Why they wait: no report server (``ReportDestination``), what it answered
    /// (`https://origin/ answered 405`), or why it could not be reached. `nil` when none wait,
    /// or none was sent yet.
    public var reason: String?
    /// Reports dropped, oldest first, because the queue held
    /// ``DepotClient/Configuration/reportQueueCapacity`` already, since reports were last
    /// delivered.
    public var dropped: Int
    /// The queue's bound (``DepotClient/Configuration/reportQueueCapacity``).
    public var capacity: Int
    /// The report server, without credentials; `nil` when there is none.
    public var server: String?

    public init(queued: Int, reason: String?, dropped: Int, capacity: Int, server: String?) {
        self.queued = queued
        self.reason = reason
        self.dropped = dropped
        self.capacity = capacity
        self.server = server
    }

    /// Whether reports wait undelivered, or some were dropped.
    public var isUndelivered: Bool { queued > 0 || dropped > 0 }

    /// `3 reports queued: no report server (…); 2 dropped at the bound of 100`, or `nil` when
    /// every report was delivered.
    public var summary: String? {
        guard isUndelivered else { return nil }
        var text = "\(queued) report\(queued == 1 ? "" : "s") queued"
        if let reason { text += ": \(reason)" }
        if dropped > 0 { text += "; \(dropped) dropped at the queue's bound of \(capacity)" }
        return text
    }
}
