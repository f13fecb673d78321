import ArgumentParser
import DepotClient

/// The minimum rate every transfer from a server or source must keep, or fail: `depot sync`,
/// `depot mirror` and `depot import` take the same options with the same defaults
/// (``DepotClient/TransferLimits``), so a server that trickles bytes cannot hold a sync, or a
/// copy and its folder's lock, for hours.
///
/// Its checks are ``check()``, which each command calls from its own validation, not
/// `validate()`: argument-parser validates an option group as it parses it, before the command
/// could say a refusal its way (`depot sync --json` says it as one JSON object).
struct TransferRateOptions: ParsableArguments {
    @Option(help: "Bytes a second every transfer must average over --rate-window, or it fails (0: no minimum).")
    var minimumRate = 1024

    @Option(help: "How long the transfer rate is averaged over (seconds, or 90s, 2m).")
    var rateWindow = DurationArgument(seconds: 30)

    /// Refuses a negative rate and an empty window.
    func check() throws {
        guard minimumRate >= 0 else { throw ValidationError("--minimum-rate takes 0 or more bytes a second") }
        guard rateWindow.seconds > 0 else { throw ValidationError("--rate-window takes a duration over 0, as 30s or 2m") }
    }

    /// The limits these options give.
    var limits: TransferLimits { TransferLimits(minimumBytesPerSecond: minimumRate, window: rateWindow.seconds) }
}
