import DepotHTTP
import Foundation

extension HTTPDate {
    /// The current time, to the second: the clock of `Date` fields and of publish times.
    public static func now() -> HTTPDate {
        HTTPDate(secondsSince1970: Int64(Date().timeIntervalSince1970.rounded(.down)))
    }
}
