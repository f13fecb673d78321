/// The content codings Depot stores for a representation.
public enum ContentCoding: String, Hashable, Sendable {
    case identity
    case gzip

    /// Chooses the coding to send under an `Accept-Encoding` field (RFC 9110 §12.5.3).
    ///
    /// - No field: identity. Any coding would be acceptable, but identity is what every client can
    ///   read.
    /// - An empty field: identity ("does not want any content coding").
    /// - Otherwise each coding gets the weight of its own entry (`x-gzip` counts as `gzip`,
    ///   §8.4.1.3), else of `*`; `q=0` excludes, and `gzip` without either is not acceptable.
    ///   gzip is sent when it is acceptable and `identity` is not given a higher weight. An
    ///   unlisted `identity` stays acceptable (§12.5.3) but expresses no preference, so
    ///   `gzip;q=0.5` alone still chooses gzip, as nginx and Apache do.
    /// - When neither is acceptable (`identity;q=0` and no gzip), identity is sent anyway: RFC 9110
    ///   moved away from 406 here on purpose, for interoperability.
    ///
    /// - Parameters:
    ///   - fieldLines: The `Accept-Encoding` field lines.
    ///   - gzipAvailable: Whether a gzip variant exists.
    public static func negotiate(acceptEncoding fieldLines: [String], gzipAvailable: Bool) -> ContentCoding {
        guard gzipAvailable, !fieldLines.isEmpty else { return .identity }
        var gzipWeight: Int?
        var identityWeight: Int?
        var anyWeight: Int?
        for line in fieldLines {
            for element in line.split(separator: ",") {
                guard let (coding, weight) = parseElement(element) else { continue }
                switch coding {
                case "gzip", "x-gzip": gzipWeight = max(gzipWeight ?? 0, weight)
                case "identity": identityWeight = max(identityWeight ?? 0, weight)
                case "*": anyWeight = max(anyWeight ?? 0, weight)
                default: break
                }
            }
        }
        let gzip = gzipWeight ?? anyWeight ?? 0
        let identity = identityWeight ?? anyWeight ?? 0
        return gzip > 0 && gzip >= identity ? .gzip : .identity
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
