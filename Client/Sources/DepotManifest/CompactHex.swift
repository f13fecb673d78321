/// A lower-case hex digest (a SHA-256 or an MD5) held as its bytes: 32 bytes inline instead of a
/// 64-character string on the heap, for the 100,000 entries and moves a sync may hold. Coded as
/// its text. Text that is no such digest is kept as it came, so that validation
/// (``ReleaseEntry/problem``) still names it.
///
/// Written by hand: no listed library holds a digest this way.
public struct CompactHex: Hashable, Sendable {
    private enum Form: Hashable, Sendable {
        /// The digest's bytes, big-endian in four words, and how many of them (16 or 32).
        case bytes(UInt64, UInt64, UInt64, UInt64, count: UInt8)
        case text(String)
    }

    private let form: Form

    public init(_ text: String) {
        let utf8 = text.utf8
        guard utf8.count == 64 || utf8.count == 32 else {
            form = .text(text)
            return
        }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for (index, character) in utf8.enumerated() {
            let digit: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = character - UInt8(ascii: "a") + 10
            default:
                form = .text(text)
                return
            }
            switch index / 16 {
            case 0: words.0 = words.0 << 4 | UInt64(digit)
            case 1: words.1 = words.1 << 4 | UInt64(digit)
            case 2: words.2 = words.2 << 4 | UInt64(digit)
            default: words.3 = words.3 << 4 | UInt64(digit)
            }
        }
        form = .bytes(words.0, words.1, words.2, words.3, count: UInt8(utf8.count / 2))
    }

    /// The digest as lower-case hex, or the text as it came.
    public var text: String {
        switch form {
        case .text(let text):
            return text
        case .bytes(let a, let b, let c, let d, let count):
            let digits = Int(count) * 2
            return String(unsafeUninitializedCapacity: digits) { buffer in
                for index in 0..<digits {
                    let word =
                        switch index / 16 {
                        case 0: a
                        case 1: b
                        case 2: c
                        default: d
                        }
                    let digit = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * (index % 16)) & 0xf)
                    buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                }
                return digits
            }
        }
    }
}

extension CompactHex: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
