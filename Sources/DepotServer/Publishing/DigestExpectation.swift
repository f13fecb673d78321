import DepotHTTP
import DepotStore
import Foundation
import HTTPTypes
import RawStructuredFieldValues

/// The digests a publisher sent with an upload, checked against what the store computed before
/// the content is kept: `Content-MD5` (RFC 1864) and the `sha-256` member of `Repr-Digest`
/// (RFC 9530). Other `Repr-Digest` algorithms are ignored, as §5 allows.
struct DigestExpectation: Sendable {
    var md5: String?
    var sha256: String?

    /// Reads the fields; throws ``DigestError`` when one is present but malformed.
    init(headers: HTTPFields) throws(DigestError) {
        if let text = headers[.contentMD5] {
            guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespaces)), bytes.count == 16 else {
                throw .malformed("Content-MD5 must be the base64 of 16 bytes")
            }
            md5 = Hex.string(bytes)
        }
        if let text = headers[.reprDigest] {
            var parser = StructuredFieldValueParser(Array(text.utf8))
            guard let dictionary = try? parser.parseDictionaryFieldValue() else {
                throw .malformed("Repr-Digest is not a structured-field dictionary")
            }
            if let member = dictionary.first(where: { $0.0 == "sha-256" })?.1 {
                guard case .item(let item) = member, case .undecodedByteSequence(let base64) = item.rfc9651BareItem,
                    let bytes = Data(base64Encoded: base64), bytes.count == 32
                else {
                    throw .malformed("The sha-256 member of Repr-Digest must be a byte sequence of 32 bytes")
                }
                sha256 = Hex.string(bytes)
            }
        }
    }

    /// Throws ``DigestError/mismatch(_:)`` when a sent digest differs from the content's.
    func verify(_ record: BlobRecord) throws(DigestError) {
        if let md5, md5 != record.md5 {
            throw .mismatch("Content-MD5 does not match the content (its MD5 is \(record.md5))")
        }
        if let sha256, sha256 != record.sha256 {
            throw .mismatch("Repr-Digest sha-256 does not match the content (its SHA-256 is \(record.sha256))")
        }
    }
}

enum DigestError: Error, CustomStringConvertible {
    case malformed(String)
    case mismatch(String)

    var description: String {
        switch self {
        case .malformed(let message), .mismatch(let message): message
        }
    }
}

extension HTTPField.Name {
    static let contentMD5 = Self("Content-MD5")!
}
