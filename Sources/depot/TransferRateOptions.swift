import ArgumentParser
import DepotClient

/// The minimum rate every transfer from a source must keep, or fail: `depot mirror` and
/// `depot import` read their sources under the rule `depot sync` follows
/// (``DepotClient/TransferLimits``), with the same options and defaults, so a source that trickles
/// bytes cannot hold a copy (and its folder's lock) for hours.
struct TransferRateOptions: ParsableArguments {
    @Option(help: "Bytes a second every transfer from a source must average over --rate-window, or it fails (0: no minimum).")
    var minimumRate = 1024

    @Option(help: "How long the transfer rate is averaged over (seconds, or 90s, 2m).")
    var rateWindow = DurationArgument(seconds: 30)

    func validate() throws {
        guard minimumRate >= 0 else { throw ValidationError("--minimum-rate takes 0 or more bytes a second") }
        guard rateWindow.seconds > 0 else { throw ValidationError("--rate-window takes a duration over 0, as 30s or 2m") }
    }

    /// The limits these options give.
    var limits: TransferLimits { TransferLimits(minimumBytesPerSecond: minimumRate, window: rateWindow.seconds) }
}
