/// What the audit trail records of a change (``Publisher/change(_:newContent:_:)``): its
/// action, the release it concerns when not the channel's, and a short note.
struct AuditNote: Sendable {
    let action: String
    var release: Int64?
    /// The channel's serial after the change, from the change's own outcome.
    var serial: Int64?
    var detail: String?

    init(_ action: String, release: Int64? = nil, serial: Int64? = nil, detail: String? = nil) {
        self.action = action
        self.release = release
        self.serial = serial
        self.detail = detail
    }
}
