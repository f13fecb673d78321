/// The form of a content address in Depot's documents and URLs: the lower-case hex SHA-256 of
/// some bytes. Blobs, patches, pages and releases are named by it, and names become file names,
/// so every place that takes one from outside checks it with this one rule.
public enum ContentAddress {
    /// Whether `text` is 64 lower-case hex digits.
    public static func isSHA256(_ text: String) -> Bool {
        isLowercaseHex(text, length: 64)
    }

    /// Whether `text` is `length` lower-case hex digits.
    static func isLowercaseHex(_ text: String, length: Int) -> Bool {
        text.utf8.count == length
            && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
