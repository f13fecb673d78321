import ArgumentParser

/// A duration on the command line: seconds (`90`, `2.5`), or a number with `s`, `m`, `h` or `d`
/// (`15m`, `1h`). Every option that takes a time reads it so (`--every`, `--watch`,
/// `--rate-window`, `--document-timeout`); one that is not a duration is a usage error.
struct DurationArgument: ExpressibleByArgument, CustomStringConvertible, Sendable {
    let seconds: Double

    init(seconds: Double) {
        self.seconds = seconds
    }

    init?(argument: String) {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        let (digits, unit) = argument.last.flatMap { units[$0] }.map { (argument.dropLast(), $0) } ?? (argument[...], 1)
        guard let value = Double(digits), value.isFinite, value > 0 else { return nil }
        seconds = value * unit
    }

    var description: String {
        seconds.truncatingRemainder(dividingBy: 1) == 0 ? "\(Int64(seconds))s" : "\(seconds)s"
    }
}
