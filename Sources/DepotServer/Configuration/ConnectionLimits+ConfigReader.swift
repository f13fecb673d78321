import Configuration
import DepotConnection

extension ConnectionLimits {
    /// Reads the connection keys from the `http` scope (see ``ServerConfiguration/init(reader:)``).
    init(reader http: ConfigReader) throws {
        let defaults = Self()
        self.init(
            idleTimeout: http.seconds(forKey: "idleTimeoutSeconds", default: defaults.idleTimeout),
            requestHeadTimeout: http.seconds(forKey: "requestHeadTimeoutSeconds", default: defaults.requestHeadTimeout),
            minimumBodyBytesPerSecond: http.int(forKey: "minimumBodyBytesPerSecond", default: defaults.minimumBodyBytesPerSecond),
            bodyRateWindow: http.seconds(forKey: "bodyRateWindowSeconds", default: defaults.bodyRateWindow),
            maxConnections: http.int(forKey: "maxConnections", default: defaults.maxConnections)
        )
        guard idleTimeout > .zero, requestHeadTimeout > .zero, bodyRateWindow > .zero, minimumBodyBytesPerSecond >= 0, maxConnections >= 1 else {
            throw ConfigurationError(
                "http.idleTimeoutSeconds, http.requestHeadTimeoutSeconds and http.bodyRateWindowSeconds must be positive, "
                    + "http.minimumBodyBytesPerSecond not negative, http.maxConnections at least 1"
            )
        }
    }
}
