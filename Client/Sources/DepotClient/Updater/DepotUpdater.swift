import DepotConcurrency
import Foundation

/// Keeps an app's folder up to date by itself: checks the channel on a schedule, downloads
/// within the client's budgets, and applies per ``ApplyPolicy``; its ``state`` and ``states``
/// say where it stands, for a progress bar or an "update ready" banner.
///
/// It owns no task: the app runs ``run()`` in a task it owns and cancels that task to stop it,
/// for example in SwiftUI:
///
/// ```swift
/// let updater = DepotUpdater(client: client, configuration: .init(policy: .applyAtNextLaunch))
/// try updater.applyPendingAtLaunch()  // before opening the folder's files
/// // in a view:
/// .task { await updater.run() }
/// .task { for await state in updater.states { self.state = state } }
/// ```
///
/// The first check comes one ``Configuration/interval`` after ``run()`` starts (call
/// ``checkNow()`` for one at once); each failure waits ``Configuration/retryDelay``, doubled
/// per failure in a row up to ``Configuration/maximumRetryDelay``; every delay is moved by up to
/// ± ``Configuration/jitter`` of itself. Time is the configured clock's.
///
/// ## In the background on Apple platforms
///
/// `BGTaskScheduler` wakes a suspended app for a short refresh: register a `BGAppRefreshTask`,
/// run one ``checkNow()`` in it, and cancel that check when the system says time is up (the
/// download keeps what it fetched and resumes next time; the folder never changes half-way):
///
/// ```swift
/// BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.depot", using: nil) { task in
///     let check = Task { await updater.checkNow() }
///     task.expirationHandler = { check.cancel() }
///     Task {
///         let state = await check.value
///         if case .failed = state { task.setTaskCompleted(success: false) } else { task.setTaskCompleted(success: true) }
///         scheduleNextRefresh()  // submit a BGAppRefreshTaskRequest again
///     }
/// }
/// ```
///
/// A refresh task has about 30 seconds: enough for a check and a small update. A large one
/// goes on in a `BGProcessingTask` (`requiresNetworkConnectivity = true`), or over the next
/// foreground runs, since each download resumes where the last stopped. The client's
/// transfers use an ephemeral `URLSession`, which stops when the app is suspended: a download
/// that must go on while the app is suspended needs a background `URLSession`
/// (`URLSessionConfiguration.background(withIdentifier:)`), which the client does not make;
/// Depot's files are content-addressed and resumable, so a download interrupted by a suspension
/// costs only the rest of the file under way. Set
/// ``DepotClient/Configuration/allowsExpensiveNetworkAccess`` and
/// ``DepotClient/Configuration/allowsConstrainedNetworkAccess`` to keep background checks off
/// cellular and Low Data Mode. (Written for Apple platforms, not run by Depot's tests.)
public final class DepotUpdater: Sendable {
    /// When a staged release is switched to.
    public enum ApplyPolicy: Sendable, Equatable {
        /// When the app calls ``DepotUpdater/applyNow()`` (Sparkle's "install on quit", Expo's
        /// `reloadAsync()`): the app chooses a moment its files are closed.
        case applyOnSignal
        /// At the next launch, when the app calls ``DepotUpdater/applyPendingAtLaunch()`` before
        /// it opens the folder's files (Expo's default); ``DepotUpdater/applyNow()`` works too.
        case applyAtNextLaunch
        /// As soon as it is downloaded, by the updater itself: for an app that opens the folder's
        /// files only for a moment, or reads through ``DepotClient/withCurrentRelease(_:)``.
        case applyImmediately
    }

    /// How an updater behaves.
    public struct Configuration: Sendable {
        /// Time between checks after a success, and before the first (counted from the last check
        /// recorded in the folder). Not bounded below: zero checks again as soon as a check ends,
        /// for a test or a kiosk; an app keeps hours.
        public var interval: Duration
        /// Time before the check after a failure; doubled for each failure in a row. At least
        /// one second, whatever is set: a zero would stay zero, doubled.
        public var retryDelay: Duration
        /// The most time between checks after failures.
        public var maximumRetryDelay: Duration
        /// The share (0...1) of each delay it may move by, either way: 0.1 moves a 1-hour
        /// interval anywhere between 54 and 66 minutes.
        public var jitter: Double
        /// When a downloaded release is applied.
        public var policy: ApplyPolicy
        /// The time the schedule is kept by: the system's monotonic clock, or a test's.
        public var clock: any Clock<Duration>
        /// Where the jitter is drawn from: a number in -1...1 each time (uniform by default).
        public var random: @Sendable () -> Double
        /// The wall-clock time a successful check is recorded at in the folder, so that the
        /// schedule counts from the last check across launches (``UpdateCheckStamp``).
        public var now: @Sendable () -> Date

        public init(
            interval: Duration = .seconds(6 * 3600),
            retryDelay: Duration = .seconds(60),
            maximumRetryDelay: Duration = .seconds(6 * 3600),
            jitter: Double = 0.1,
            policy: ApplyPolicy = .applyOnSignal,
            clock: any Clock<Duration> = ContinuousClock(),
            random: @escaping @Sendable () -> Double = { Double.random(in: -1...1) },
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.interval = interval
            self.retryDelay = retryDelay
            self.maximumRetryDelay = maximumRetryDelay
            self.jitter = jitter
            self.policy = policy
            self.clock = clock
            self.random = random
            self.now = now
        }

        var schedule: UpdateSchedule {
            UpdateSchedule(interval: interval, retryDelay: retryDelay, maximumRetryDelay: maximumRetryDelay, jitter: jitter)
        }
    }

    struct Inner {
        var state: UpdateState
        var subscribers: [Int: AsyncStream<UpdateState>.Continuation] = [:]
        var nextSubscriber = 0
        /// Failures in a row, of checks of the schedule and of ``DepotUpdater/checkNow()``.
        var failures = 0
        /// Whether a check or an apply is under way, and who waits for it to end: one at a time,
        /// since each takes the folder's sync lock (``DepotUpdater/exclusively(_:)``).
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    public let client: DepotClient
    public let configuration: Configuration
    let inner: Locked<Inner>
    /// Told each delay the schedule waits before a check (tests read the backoff from it).
    let scheduled: (@Sendable (Duration) -> Void)?

    /// An updater of `client`'s folder; its first ``state`` is read from the folder (no network):
    /// ``UpdateState/ready(_:)`` when a release is staged, ``UpdateState/upToDate(_:)`` when
    /// one is held (until a check says otherwise), else ``UpdateState/idle``.
    public convenience init(client: DepotClient, configuration: Configuration = Configuration()) {
        self.init(client: client, configuration: configuration, scheduled: nil)
    }

    init(client: DepotClient, configuration: Configuration, scheduled: (@Sendable (Duration) -> Void)?) {
        self.client = client
        self.configuration = configuration
        self.scheduled = scheduled
        self.inner = Locked(Inner(state: .idle))
        inner.withLock { $0.state = Self.restingState(of: client) }
    }

    deinit {
        for subscriber in inner.withLock({ $0.subscribers.values }) { subscriber.finish() }
    }

    /// Where the updater stands now.
    public var state: UpdateState { inner.withLock { $0.state } }

    /// The updater's states: the current one first, then each change, for as long as the
    /// consumer iterates (a consumer slower than a download's progress sees its latest states,
    /// not every one). Each access is a new sequence; any number may be read at once.
    public var states: AsyncStream<UpdateState> {
        let (stream, continuation) = AsyncStream.makeStream(of: UpdateState.self, bufferingPolicy: .bufferingNewest(16))
        let id = inner.withLock { inner in
            defer { inner.nextSubscriber += 1 }
            inner.subscribers[inner.nextSubscriber] = continuation
            continuation.yield(inner.state)
            return inner.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.inner.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Makes `state` the current state and tells every subscriber, in order.
    func set(_ state: UpdateState) {
        inner.withLock { inner in
            inner.state = state
            for subscriber in inner.subscribers.values { subscriber.yield(state) }
        }
    }

    /// What the folder alone says: a staged release, the release held, or nothing.
    static func restingState(of client: DepotClient) -> UpdateState {
        if let staged = client.stagedUpdate { return .ready(staged) }
        if let held = client.currentRelease { return .upToDate(held) }
        return .idle
    }
}
