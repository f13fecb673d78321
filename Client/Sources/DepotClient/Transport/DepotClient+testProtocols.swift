import DepotConcurrency
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DepotClient {
    /// URLProtocol classes every session of this process asks first, before the system's own:
    /// the tests' in-process servers (DepotTestSupport's `InProcessURLProtocol`) answer the
    /// requests to their own hosts with one, through the server's router and no socket; any
    /// other request goes on to the network as usual. Empty in use; internal, so only a
    /// `@testable import` reaches it (``interceptRequests(with:)``).
    static let testProtocols = Locked<[AnyClass]>([])

    /// Has every session of this process ask `type` first (once, however often called).
    static func interceptRequests(with type: AnyClass) {
        testProtocols.withLock { protocols in
            if !protocols.contains(where: { $0 == type }) { protocols.append(type) }
        }
    }
}
