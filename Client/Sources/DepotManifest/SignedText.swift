/// The text a document's signatures cover: one line a field, a keyword then the field's values,
/// written so that the text names the fields it was made from and no others.
///
/// A value can end neither its line nor its place among values: a backslash becomes `\\` and
/// a line feed `\n`; in a line of several values a space becomes `\s`, and an absent value is
/// `-` (a present `-` becomes `\-`). No field can then be moved into another, nor a line added,
/// by a value that holds those characters: a `rollout.salt` that ends with a line feed and
/// `rollout-minimum-client-version 3.0` stays on the salt's line, so it does not sign as the
/// document whose minimum it is.
///
/// The values of every document Depot has signed hold none of those characters, so each
/// signs as it did before this rule: a document signed then verifies now.
public struct SignedText: Sendable {
    /// The text so far.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// The line `keyword value`; `value` may hold spaces.
    public mutating func line(_ keyword: String, _ value: String) {
        bytes += keyword.utf8
        bytes.append(0x20)
        Self.append(value, spaces: false, to: &bytes)
        bytes.append(0x0A)
    }

    /// The line `keyword` and `values`, one space between each, each value escaped so that it
    /// holds no space; `nil` is written `-`.
    public mutating func line(_ keyword: String, values: [String?]) {
        bytes += keyword.utf8
        for value in values {
            bytes.append(0x20)
            if let value {
                if value == "-" { bytes.append(0x5C) }
                Self.append(value, spaces: true, to: &bytes)
            } else {
                bytes.append(0x2D)
            }
        }
        bytes.append(0x0A)
    }

    /// A line of its own: the document's format.
    public mutating func line(_ keyword: String) {
        bytes += keyword.utf8
        bytes.append(0x0A)
    }

    private static func append(_ value: String, spaces: Bool, to bytes: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case 0x5C: bytes += [0x5C, 0x5C]
            case 0x0A: bytes += [0x5C, 0x6E]
            case 0x20 where spaces: bytes += [0x5C, 0x73]
            default: bytes.append(byte)
            }
        }
    }
}
