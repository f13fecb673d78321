/// The body of `POST /v1/blobs` (`Content-Type: application/vnd.depot.blobs`): many small blobs
/// in one request, each framed as its SHA-256 in lowercase hex, a space, its length in decimal,
/// a line feed, then exactly that many bytes:
///
/// ```
/// 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824 5\nhello
/// ```
///
/// The server checks each blob against its SHA-256 and stores the batch with one group commit;
/// a batch is stored whole or not at all. Written by hand: the framing is Depot's own.
public enum BlobBatch {
    /// The media type of a batch.
    public static let mediaType = "application/vnd.depot.blobs"

    /// The header that precedes a blob of `size` bytes with this SHA-256.
    public static func header(sha256: String, size: Int) -> [UInt8] {
        Array("\(sha256) \(size)\n".utf8)
    }

    /// One blob of a batch.
    public struct Member: Sendable, Equatable {
        public var sha256: String
        public var bytes: [UInt8]

        public init(sha256: String, bytes: [UInt8]) {
            self.sha256 = sha256
            self.bytes = bytes
        }
    }

    /// Why a batch's body cannot be read.
    public struct FormatError: Error, CustomStringConvertible, Sendable, Equatable {
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// A blob of a batch longer than the parser's ``Parser/maximumMemberBytes``.
    public struct MemberTooLarge: Error, CustomStringConvertible, Sendable, Equatable {
        /// The length its header gives.
        public let size: Int

        public init(size: Int) {
            self.size = size
        }

        public var description: String { "a blob of the batch has \(size) bytes" }
    }

    /// Reads a batch as its body arrives, in chunks of any size.
    public struct Parser: Sendable {
        /// The largest blob accepted.
        public let maximumMemberBytes: Int
        private var header: [UInt8] = []
        private var member: Member?
        private var remaining = 0

        public init(maximumMemberBytes: Int) {
            self.maximumMemberBytes = maximumMemberBytes
        }

        /// Feeds the next bytes; returns the blobs they complete.
        ///
        /// - Throws: ``FormatError`` for a malformed header, ``MemberTooLarge`` for a blob over
        ///   ``maximumMemberBytes``.
        public mutating func feed(_ bytes: UnsafeRawBufferPointer) throws -> [Member] {
            var completed: [Member] = []
            var position = 0
            while position < bytes.count {
                if var current = member {
                    let count = min(remaining, bytes.count - position)
                    current.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[position..<position + count]))
                    position += count
                    remaining -= count
                    if remaining == 0 {
                        completed.append(current)
                        member = nil
                    } else {
                        member = current
                    }
                    continue
                }
                let byte = bytes[position]
                position += 1
                guard byte != UInt8(ascii: "\n") else {
                    try startMember()
                    if remaining == 0, let empty = member {
                        completed.append(empty)
                        member = nil
                    }
                    continue
                }
                header.append(byte)
                guard header.count <= 64 + 1 + 19 else { throw FormatError("a blob's header is longer than a SHA-256 and a length") }
            }
            return completed
        }

        /// Checks that the body did not end inside a blob or its header.
        public func finish() throws(FormatError) {
            guard member == nil, header.isEmpty else { throw FormatError("the batch ends inside a blob") }
        }

        private mutating func startMember() throws {
            defer { header.removeAll(keepingCapacity: true) }
            guard header.count >= 66, header[64] == UInt8(ascii: " ") else {
                throw FormatError("a blob's header must be its SHA-256 in hex, a space and its length")
            }
            let hex = header[..<64]
            guard hex.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
            else { throw FormatError("a blob's SHA-256 must be 64 lowercase hex digits") }
            let digits = header[65...]
            guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), digits.first != UInt8(ascii: "0") || digits.count == 1,
                let size = Int(String(decoding: digits, as: UTF8.self))
            else { throw FormatError("a blob's length must be a decimal number") }
            guard size <= maximumMemberBytes else { throw MemberTooLarge(size: size) }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(size)
            member = Member(sha256: String(decoding: hex, as: UTF8.self), bytes: bytes)
            remaining = size
        }
    }
}
