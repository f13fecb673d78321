/// Where a ``DepotUpdater`` stands, as an app shows it (``DepotUpdater/state``,
/// ``DepotUpdater/states``).
public enum UpdateState: Sendable, Equatable {
    /// No check has run yet (or the last was cancelled), and nothing is staged.
    case idle
    /// Asking the server whether the channel names another release.
    case checking
    /// Downloading a release, with its progress; the first before the first byte says what the
    /// whole is expected to transfer.
    case downloading(SyncProgress)
    /// A release is downloaded, verified and staged: ``DepotUpdater/applyNow()`` (or the next
    /// launch, per ``DepotUpdater/ApplyPolicy``) switches to it with no network.
    case ready(StagedUpdate)
    /// Switching the folder to the staged release.
    case applying
    /// The folder holds the release the channel names.
    case upToDate(HeldRelease)
    /// The last check, download or apply failed; the updater tries again after its backoff
    /// (``DepotUpdater/Configuration/retryDelay``).
    case failed(SyncError)

    public static func == (left: UpdateState, right: UpdateState) -> Bool {
        switch (left, right) {
        case (.idle, .idle), (.checking, .checking), (.applying, .applying): true
        case (.downloading(let left), .downloading(let right)): left == right
        case (.ready(let left), .ready(let right)): left == right
        case (.upToDate(let left), .upToDate(let right)): left == right
        case (.failed(let left), .failed(let right)): left.code == right.code && left.message == right.message
        default: false
        }
    }
}
