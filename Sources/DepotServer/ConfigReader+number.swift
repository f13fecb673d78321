import Configuration

extension ConfigReader {
    /// A number that may be written with or without a fraction: JSON's `2` is an int and `2.5` a
    /// double, and both must mean what they say.
    func number(forKey key: ConfigKey, default defaultValue: Double) -> Double {
        double(forKey: key) ?? int(forKey: key).map(Double.init) ?? defaultValue
    }
}
