import Logging
import Synchronization

/// What an in-process server logged (``InProcessCLI/withServer(environment:publishToken:from:log:_:)``),
/// from its info level, one line an event, as `depot serve` writes it to standard error:
/// `LEVEL LABEL : KEY=VALUE … [SOURCE] MESSAGE`, its metadata sorted by key.
public final class ServerLog: Sendable {
    private let events = Mutex<[(level: Logger.Level, message: String, line: String)]>([])

    public init() {}

    /// Every line so far.
    public var text: String { events.withLock { $0.map { $0.line + "\n" }.joined() } }

    /// The messages logged at `level`, in order.
    public func messages(at level: Logger.Level) -> [String] {
        events.withLock { $0.filter { $0.level == level }.map(\.message) }
    }

    /// A logger writing here.
    public var logger: Logger {
        Logger(label: "depot") { _ in Handler(log: self) }
    }

    fileprivate func append(_ level: Logger.Level, _ message: String, line: String) {
        events.withLock { $0.append((level, message, line)) }
    }

    private struct Handler: LogHandler {
        let log: ServerLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let pairs = all.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
            log.append(event.level, event.message.description, line: "\(event.level) depot :\(pairs) [\(event.source)] \(event.message)")
        }
    }
}
