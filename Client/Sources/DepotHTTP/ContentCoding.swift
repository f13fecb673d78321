/// The content codings a representation may be sent in: identity, and the precompressed
/// variants (RFC 9110 §8.4.1: `gzip`; RFC 7932 `br`; RFC 8878 `zstd`).
public enum ContentCoding: String, Hashable, Sendable, CaseIterable {
    case identity
    case gzip
    case br
    case zstd

    /// The media type of a file that holds bytes in this coding, served as those bytes (a
    /// variant's own URL, without `Content-Encoding`): `application/gzip` (RFC 6713),
    /// `application/zstd` (RFC 8878); brotli has none registered, so `application/octet-stream`.
    public var mediaType: String {
        switch self {
        case .gzip: "application/gzip"
        case .zstd: "application/zstd"
        case .br, .identity: "application/octet-stream"
        }
    }

    /// The codings of stored variants, in the order that breaks a tie of sizes: the server's
    /// negotiation and a client's choice of its download (`ReleaseEntry.download(decoding:)`)
    /// both follow it.
    public static let precompressed: [ContentCoding] = [.br, .zstd, .gzip]

    /// Chooses the coding to send under an `Accept-Encoding` field (RFC 9110 §12.5.3), among
    /// identity and the variants `available` holds (each with its size in bytes).
    ///
    /// - No field: identity. Any coding would be acceptable, but identity is what every client can
    ///   read.
    /// - An empty field: identity ("does not want any content coding").
    /// - Otherwise each coding gets the weight of its own entry (`x-gzip` counts as `gzip`,
    ///   §8.4.1.3), else of `*`; `q=0` excludes, and a coding without either is not acceptable.
    ///   Unknown codings are ignored. Of the acceptable variants, the one with the highest weight
    ///   is chosen, the smallest among equal weights (then br, zstd, gzip: a fixed order, so
    ///   the choice never depends on the order of a dictionary). It is sent unless `identity` is
    ///   given a higher weight. An unlisted `identity` stays acceptable (§12.5.3) but expresses
    ///   no preference, so `gzip;q=0.5` alone still chooses gzip, as nginx and Apache do.
    /// - When nothing is acceptable (`identity;q=0` and no acceptable variant), identity is sent
    ///   anyway: RFC 9110 moved away from 406 here on purpose, for interoperability.
    public static func negotiate(acceptEncoding fieldLines: [String], available: [ContentCoding: Int64]) -> ContentCoding {
        guard !available.isEmpty, !fieldLines.isEmpty else { return .identity }
        var weights: [String: Int] = [:]
        for line in fieldLines {
            for element in line.split(separator: ",") {
                guard let (coding, weight) = parseElement(element) else { continue }
                let name = coding == "x-gzip" ? "gzip" : coding
                weights[name] = max(weights[name] ?? 0, weight)
            }
        }
        func weight(_ coding: ContentCoding) -> Int { weights[coding.rawValue] ?? weights["*"] ?? 0 }
        let best = precompressed.compactMap { coding in available[coding].map { (coding, weight(coding), $0) } }
            .filter { $0.1 > 0 }
            .min { ($1.1, $0.2) < ($0.1, $1.2) }
        guard let best, best.1 >= weight(.identity) else { return .identity }
        return best.0
    }

    /// Parses `codings [ weight ]` into a lower-cased coding and a weight in thousandths.
    /// Returns `nil` for an empty or malformed element, which is then ignored.
    static func parseElement(_ element: Substring) -> (String, Int)? {
        var parameters = element.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        guard let codingText = parameters.next() else { return nil }
        let coding = codingText.trimmingOWS().lowercased()
        guard !coding.isEmpty, coding.utf8.allSatisfy(FieldScanner.isTokenCharacter) else { return nil }
        var weight = 1000
        while let parameter = parameters.next() {
            let pieces = parameter.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2 else { return nil }
            guard pieces[0].trimmingOWS().lowercased() == "q" else { continue }
            guard let parsed = parseQValue(pieces[1].trimmingOWS()) else { return nil }
            weight = parsed
        }
        return (coding, weight)
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` (§12.4.2), in thousandths.
    static func parseQValue(_ text: Substring) -> Int? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        var value = Int(first - UInt8(ascii: "0")) * 1000
        guard bytes.count > 1 else { return value }
        guard bytes[1] == UInt8(ascii: "."), bytes.count <= 5 else { return nil }
        var scale = 100
        for byte in bytes[2...] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value += Int(byte - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return value <= 1000 ? value : nil
    }
}

extension StringProtocol {
    func trimmingOWS() -> Substring {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isWhitespace($0) }), let end = lastIndex(where: { !isWhitespace($0) }) else { return "" }
        return Substring(self[start...end])
    }
}
