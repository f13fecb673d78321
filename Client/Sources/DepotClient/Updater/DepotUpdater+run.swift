import DepotConcurrency
import Foundation

extension DepotUpdater {
    /// Checks on the schedule until the task running it is cancelled: waits, checks
    /// (``checkNow()``), waits again, longer after failures. The interval counts from the last
    /// successful check, recorded in the folder: a relaunched app checks when it is due. Returns when cancelled; a
    /// download under way then stops where it is, the folder unchanged, and resumes at the next
    /// check.
    public func run() async {
        let schedule = configuration.schedule
        // The folder's stamp counts until this run's first check; then the interval counts from
        // that check, whether the folder took its stamp or not (a full disk, a read-only folder:
        // the old stamp would make every check overdue, one after another without a pause).
        var elapsed = UpdateCheckStamp.load(from: client)?.elapsed(until: configuration.now())
        while !Task.isCancelled {
            let failures = inner.withLock { $0.failures }
            let delay = schedule.delay(afterFailures: failures, draw: configuration.random(), elapsed: elapsed)
            do {
                try await wait(delay, on: configuration.clock)
            } catch {
                return
            }
            await checkNow()
            elapsed = nil
        }
    }

    /// Sleeps `delay` on `clock`, telling ``scheduled`` once the deadline is set.
    private func wait<C: Clock<Duration>>(_ delay: Duration, on clock: C) async throws {
        let deadline = clock.now.advanced(by: delay)
        scheduled?(delay)
        try await clock.sleep(until: deadline, tolerance: nil)
    }

    /// Checks now, downloads what the channel names if it is new (within the client's budgets,
    /// ``DepotClient/Configuration/maximumTransferBytes``), and applies it if the policy is
    /// ``ApplyPolicy/applyImmediately``; returns the state it ends in. For a
    /// `BGAppRefreshTask`, or a "check for updates" button. A check or an apply under way (the
    /// schedule's, another caller's) ends first: one at a time. Cancelling the calling task stops
    /// a download where it is; the state then goes back to what the folder says.
    @discardableResult
    public func checkNow() async -> UpdateState {
        await exclusively {
            let outcome = await check()
            // Cancelled: neither a failure nor a success.
            guard !Task.isCancelled else { return outcome }
            let failed = inner.withLock { inner in
                if case .failed = outcome { inner.failures += 1 } else { inner.failures = 0 }
                return inner.failures > 0
            }
            if !failed { UpdateCheckStamp.record(configuration.now(), in: client) }
            return outcome
        }
    }

    /// Runs `body` once no other check or apply of this updater runs, and before the next starts.
    func exclusively<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = inner.withLock { inner in
                guard inner.busy else {
                    inner.busy = true
                    return true
                }
                inner.waiting.append(turn)
                return false
            }
            if now { turn.resume() }
        }
        defer {
            // The next in line gets the turn, still busy; or none waits, and it is free.
            let next = inner.withLock { inner in
                if inner.waiting.isEmpty { inner.busy = false }
                return inner.waiting.isEmpty ? nil : inner.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }

    /// One check: download (a poll, and the release's files if it is new), then the state the
    /// folder is in, applied per policy.
    private func check() async -> UpdateState {
        set(.checking)
        do {
            let (updates, progress) = AsyncStream.makeStream(of: SyncProgress.self, bufferingPolicy: .bufferingNewest(1))
            async let downloaded = client.download(progress: progress)
            for await update in updates { set(.downloading(update)) }
            // A file that failed throws (``SyncError/filesFailed(_:)``), the report attached.
            _ = try await downloaded
        } catch  where !Task.isCancelled {
            return .failed(fail(error))
        } catch {
            // Cancelled: neither a failure nor a success; the folder says where it stands.
            return rest()
        }
        if configuration.policy == .applyImmediately, client.stagedUpdate != nil {
            return (try? apply()).map { UpdateState.upToDate($0) } ?? state
        }
        return rest()
    }

    /// Makes what the folder alone says the state (``restingState(of:)``), and returns it.
    private func rest() -> UpdateState {
        let resting = Self.restingState(of: client)
        set(resting)
        return resting
    }

    /// Makes `error` the state, ``UpdateState/failed(_:)`` (a ``SyncError``; any other as
    /// `.io`), and returns it as the ``SyncError``.
    private func fail(_ error: any Error) -> SyncError {
        let failure = error as? SyncError ?? SyncError(.io, "\(error)")
        set(.failed(failure))
        return failure
    }

    /// Switches the folder to the staged release now (``DepotClient/apply()``: renames only, no
    /// network), at the app's signal, whatever the policy; returns the release now held. Waits
    /// for a check under way to end first (its download holds the folder).
    ///
    /// - Throws: ``SyncError``, as ``DepotClient/apply()`` does (`.notStaged` when nothing is
    ///   staged); the state is then ``UpdateState/failed(_:)``.
    @discardableResult
    public func applyNow() async throws -> HeldRelease {
        try await exclusively { try apply() }
    }

    /// At launch, before the app opens the folder's files and before ``run()``: applies a
    /// release an earlier run staged, unless the policy is ``ApplyPolicy/applyOnSignal``;
    /// returns it, or `nil` when there was none to apply. No network, no waiting: it can run
    /// in an app's `init`.
    ///
    /// - Throws: ``SyncError``, as ``DepotClient/apply()`` does; the state is then
    ///   ``UpdateState/failed(_:)``.
    @discardableResult
    public func applyPendingAtLaunch() throws -> HeldRelease? {
        guard configuration.policy != .applyOnSignal, client.stagedUpdate != nil else { return nil }
        return try apply()
    }

    /// Applies what is staged, telling the states; the caller has the turn (or is the launch).
    private func apply() throws -> HeldRelease {
        set(.applying)
        do {
            let release = try client.apply()
            set(.upToDate(release))
            return release
        } catch {
            throw fail(error)
        }
    }

    /// Tells the server the app opened and used the release it holds
    /// (``DepotClient/report(_:)`` `.healthy`), for staged rollouts' gates; does nothing when
    /// the client's reports are off.
    public func reportHealthy() async throws {
        try await client.report(.healthy)
    }
}
