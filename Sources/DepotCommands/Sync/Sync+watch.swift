import DepotClient
import Foundation
import UnixSignals

extension Depot.Sync {
    /// `--watch`: syncs every `interval` until SIGINT or SIGTERM, for good. A failed round is
    /// one line on standard error (and, with `--json`, its ``FailureDocument`` on standard
    /// output) and is tried again after a backoff (``WatchSchedule``: doubling from the
    /// interval up to `--max-backoff`, with jitter); a round that went well starts it over. A
    /// signal stops the round under way (what it verified stays staged for the next run) and
    /// ends the command with status 0 (in process: ``CommandEnvironment/stop``, instead of a signal).
    func watching(_ client: DepotClient, every interval: DurationArgument, in environment: CommandEnvironment) async {
        let json = json
        let loop = WatchLoop(
            schedule: WatchSchedule(interval: interval.seconds, maximumBackoff: maxBackoff.seconds),
            round: { try await syncOnce(client, in: environment) },
            log: { error, line in
                let reported = (error as? CommandFailure)?.isReported ?? false
                if json, !reported, let document = try? jsonLine(FailureDocument(error)) { writeLine(document, in: environment) }
                environment.printError(printable(line))
            },
            sleep: { seconds in try await Task.sleep(for: .milliseconds(Int64(min(seconds, Self.longestWait) * 1000))) },
            jitter: { Double.random(in: 0..<1) }
        )
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await loop.run() }
            group.addTask {
                if let stop = environment.stop {
                    environment.printError("Stopped by \(await stop()).")
                    return
                }
                for await signal in await UnixSignalsSequence(trapping: .sigterm, .sigint) {
                    environment.printError("Stopped by \(signal).")
                    return
                }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
