/// An app's version as releases compare it (`minimumClientVersion`): one to four numbers
/// separated by dots, as `2`, `2.3` or `2.3.1`; missing numbers count as 0, so `2.3` is
/// `2.3.0`. Hand-written: no library of the listed ones parses versions, and Semantic
/// Versioning's pre-release rules are more than a minimum needs.
public struct ClientVersion: Comparable, Sendable, CustomStringConvertible {
    public let numbers: [Int]
    public let description: String

    /// `text` as a version, or `nil` when it is not one.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 9 && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } })
        else { return nil }
        numbers = parts.map { Int($0)! }
        description = text
    }

    public static func < (lhs: ClientVersion, rhs: ClientVersion) -> Bool {
        for index in 0..<4 {
            let (left, right) = (index < lhs.numbers.count ? lhs.numbers[index] : 0, index < rhs.numbers.count ? rhs.numbers[index] : 0)
            if left != right { return left < right }
        }
        return false
    }

    public static func == (lhs: ClientVersion, rhs: ClientVersion) -> Bool { !(lhs < rhs) && !(rhs < lhs) }
}
