import Configuration

extension ConfigReader {
    /// A number that may be written with or without a fraction: JSON's `2` is an int and `2.5` a
    /// double, and both must mean what they say.
    func number(forKey key: ConfigKey, default defaultValue: Double) -> Double {
        double(forKey: key) ?? int(forKey: key).map(Double.init) ?? defaultValue
    }

    /// A duration given in seconds, whole or fractional.
    func seconds(forKey key: ConfigKey, default defaultValue: Duration) -> Duration {
        let seconds = number(forKey: key, default: defaultValue / .seconds(1))
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
