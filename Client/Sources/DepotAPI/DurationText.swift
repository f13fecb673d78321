/// A duration as people write it: seconds (`90`, `2.5`), or a number with `s`, `m`, `h` or `d`
/// (`15m`, `1h`). The one rule for every option of `depot` that takes a time and for the
/// `every` of a rollout request (the dashboard's start form).
public enum DurationText {
    /// The seconds `text` says; `nil` unless it is a positive, finite duration.
    public static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        let (digits, unit) = text.last.flatMap { units[$0] }.map { (text.dropLast(), $0) } ?? (text[...], 1)
        guard let value = Double(digits), value.isFinite, value > 0 else { return nil }
        return value * unit
    }

    /// Whole seconds in the largest unit that divides them: `1h`, `15m`, `90s`.
    public static func text(seconds: Int64) -> String {
        for (unit, size) in [("d", Int64(86400)), ("h", 3600), ("m", 60)] where seconds > 0 && seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }
}
