import ArgumentParser
import DepotAPI

/// A duration on the command line, read by ``DepotAPI/DurationText`` (`90`, `15m`, `1h`). Every option that takes a time reads it so (`--every`, `--watch`,
/// `--rate-window`, `--document-timeout`); one that is not a duration is a usage error.
struct DurationArgument: ExpressibleByArgument, CustomStringConvertible, Sendable {
    let seconds: Double

    init(seconds: Double) {
        self.seconds = seconds
    }

    init?(argument: String) {
        guard let seconds = DurationText.seconds(argument) else { return nil }
        self.seconds = seconds
    }

    var description: String {
        seconds.truncatingRemainder(dividingBy: 1) == 0 ? "\(Int64(seconds))s" : "\(seconds)s"
    }
}
