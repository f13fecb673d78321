/// Delta encoding in HTTP (RFC 3229): which instance-manipulations a request's `A-IM` field
/// accepts.
public struct AcceptedInstanceManipulations: Hashable, Sendable {
    /// `vcdiff` (RFC 3229 §10.1, RFC 3284) is acceptable.
    public var vcdiff: Bool
    /// `gzip` may be applied after it (`IM: vcdiff, gzip`).
    public var gzip: Bool

    /// Reads `A-IM` field lines: `#( instance-manipulation [ ";" "q" "=" qvalue ] )`, with the
    /// same weights as `Accept-Encoding`; `q=0` excludes. Malformed elements are ignored.
    public init(aIM fieldLines: [String]) {
        var vcdiff = false
        var gzip = false
        for line in fieldLines {
            for element in line.split(separator: ",") {
                guard let (name, weight) = ContentCoding.parseElement(element), weight > 0 else { continue }
                if name == "vcdiff" { vcdiff = true }
                if name == "gzip" { gzip = true }
            }
        }
        self.vcdiff = vcdiff
        self.gzip = gzip
    }
}
