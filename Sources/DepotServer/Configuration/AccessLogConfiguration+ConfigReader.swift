import Configuration
import DepotConnection

extension AccessLogConfiguration {
    /// Reads the `log.requests*` keys from the `log` scope (see ``ServerConfiguration/init(reader:)``).
    init(reader log: ConfigReader) throws {
        let defaults = AccessLogConfiguration()
        let formatName = log.string(forKey: "requestsFormat", default: defaults.format.rawValue)
        guard let format = Format(rawValue: formatName) else {
            throw ConfigurationError("log.requestsFormat must be depot or combined, not \(formatName)")
        }
        let bufferBytes = log.int(forKey: "requestsBufferBytes", default: defaults.bufferBytes)
        guard bufferBytes >= AccessLogWriter.flushBytes else {
            throw ConfigurationError("log.requestsBufferBytes must be at least \(AccessLogWriter.flushBytes)")
        }
        let flushInterval = log.seconds(forKey: "requestsFlushSeconds", default: defaults.flushInterval)
        guard flushInterval > .zero else { throw ConfigurationError("log.requestsFlushSeconds must be more than 0") }
        self.init(format: format, path: log.string(forKey: "requestsFile"), bufferBytes: bufferBytes, flushInterval: flushInterval)
    }
}
