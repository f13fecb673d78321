import DepotTestFixtures
import Foundation

extension Fixture {
    /// Version `number` of a catalog-like text file (20,000 tab-separated records): version 1,
    /// with records `1_000, 2_000, …` up to `(number - 1) * 1_000` rewritten. Versions close to
    /// each other, so that a server makes patches between them.
    package static func catalogVersion(_ number: Int) -> Data {
        var text = (0..<20_000).map { "\($0)\titem-\($0 * 7919 % 10007)\tprice=\($0 % 997)\n" }.joined()
        for id in 1..<number { text = text.replacingOccurrences(of: "\n\(id * 1_000)\titem-", with: "\n\(id * 1_000)\tNEW-") }
        return Data(text.utf8)
    }
}

extension Fixture {
    /// ``catalogVersion(_:)`` 1 with a few records (17, 5,000, 12,345, 19,999) changed.
    package static let catalogEdited: Data = {
        var text = String(decoding: catalogVersion(1), as: UTF8.self)
        for id in [17, 5_000, 12_345, 19_999] {
            text = text.replacingOccurrences(of: "\n\(id)\titem-", with: "\n\(id)\tITEM-")
        }
        return Data(text.utf8)
    }()
}
