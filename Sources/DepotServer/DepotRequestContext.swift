import Hummingbird
import Logging
import NIOCore

/// The request context of every Depot route: Hummingbird's basic context plus the connection's
/// channel, so an upload refused part-way can close the connection instead of reading the rest.
public struct DepotRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}
