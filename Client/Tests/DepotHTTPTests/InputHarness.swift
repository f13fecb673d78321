// What the input fuzzers check, shared by `scripts/fuzz` (libFuzzer, this file compiled
// with the sources of DepotHTTP and DepotManifest as one module) and `FuzzCorpusTests` (the seed
// corpora in Corpus/, run as tests). Each check takes arbitrary bytes, must not trap, and
// throws when an invariant does not hold.
import Foundation

#if canImport(DepotHTTP)
import DepotHTTP
import DepotManifest
#endif

enum InputHarness {
    struct Violation: Error, CustomStringConvertible {
        let description: String
    }

    static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Violation(description: message()) }
    }

    /// A request path as the server takes it (`RequestPath`, then `PortablePath`'s rule for
    /// published paths), and a list of manifest paths as the client checks them.
    static func paths(_ bytes: [UInt8]) throws {
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let plain = RequestPath.plainRelativePath(line)
            guard let decoded = try? RequestPath(decoding: line) else {
                try require(plain == nil, "the fast path accepted \(line), which decoding refuses")
                continue
            }
            if let plain { try require(String(plain) == decoded.relativePath && !decoded.hasTrailingSlash, "the fast path disagrees on \(line)") }
            let relative = decoded.relativePath
            guard !relative.isEmpty else { continue }
            let again = try? RequestPath(decoding: "/" + RequestPath.encode(relative))
            try require(again?.relativePath == relative, "encoding \(relative) does not decode back")
            let normalized = PortablePath.normalized(relative)
            try require(PortablePath.normalized(normalized) == normalized, "NFC of \(relative) is not stable")
            try require(PortablePath.collisionKey(relative) == PortablePath.collisionKey(normalized), "the key of \(relative) depends on its form")
            try require(normalized == relative, "Swift does not see \(relative) and its NFC as equal")
            _ = PortablePath.problem(normalized)
        }
        let listed = text.split(separator: "\n").map(String.init)
        for (path, other) in PortablePath.collisions(in: listed) {
            let (key, otherKey) = (PortablePath.collisionKey(path), PortablePath.collisionKey(other))
            // By scalars: a `/` followed by a combining mark is one `Character`.
            func isInside(_ inner: String, _ outer: String) -> Bool { inner.unicodeScalars.starts(with: (outer + "/").unicodeScalars) }
            try require(key == otherKey || isInside(key, otherKey) || isInside(otherKey, key), "\(path) and \(other) were said to collide")
        }
    }

    /// Request fields as the server parses them; the first byte picks the field.
    static func fields(_ bytes: [UInt8]) throws {
        guard let kind = bytes.first else { return }
        let value = String(decoding: bytes.dropFirst(), as: UTF8.self)
        let lines = value.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let now = HTTPDate(secondsSince1970: 1_700_000_000)
        switch kind % 6 {
        case 0:
            let tag = EntityTag(opaqueTag: String(repeating: "a", count: 64))!
            if let condition = EntityTagCondition(fieldLines: lines), condition.matchesStrongly(tag) {
                try require(condition.matchesWeakly(tag), "a strong match that is not a weak one")
            }
        case 1:
            guard let set = ByteRangeSet(fieldLines: lines) else { return }
            for length: Int64 in [0, 1, 100, 1 << 40] {
                if case .ranges(let ranges) = RangeSelection.select(set, length: length, limits: RangeLimits(maxRanges: 50)) {
                    try require(!ranges.isEmpty && ranges.allSatisfy { $0.lowerBound >= 0 && $0.upperBound < length }, "ranges out of \(length)")
                }
            }
        case 2:
            if let date = HTTPDate(parsing: value, now: now) {
                try require(HTTPDate(parsing: date.imfFixdate, now: now) == date, "\(value) does not round-trip")
            }
        case 3:
            _ = ContentCoding.negotiate(acceptEncoding: lines, available: [.gzip: 100, .br: 80, .zstd: 90])
        case 4:
            _ = AcceptedInstanceManipulations(aIM: lines)
        default:
            let trusted: Set<String> = ["127.0.0.1", "10.0.0.1"]
            let client = ForwardedClient.address(peer: "127.0.0.1", forwardedFor: lines, trustedProxies: trusted)
            try require(!client.isEmpty, "an empty client address")
        }
    }

    /// A release page or channel document as the client reads it: decoded, checked, its paths
    /// checked for collisions.
    static func pages(_ bytes: [UInt8]) throws {
        if let channel = try? JSONDecoder().decode(ChannelDocument.self, from: Data(bytes)) {
            _ = channel.signedText
        }
        guard let page = try? JSONDecoder().decode(ReleasePage.self, from: Data(bytes)) else { return }
        _ = PortablePath.collisions(in: page.entries.map(\.path))
        for entry in page.entries where entry.problem == nil {
            // What a usable entry lets the client put into file names and URLs.
            let names: [String] = [entry.sha256] + (entry.gzip.map { [$0.sha256] } ?? []) + (entry.patches ?? []).flatMap { [$0.from, $0.sha256] }
            try require(names.allSatisfy { $0.utf8.count == 64 && !$0.contains("/") && !$0.contains(".") }, "a usable entry with an unsafe name")
            _ = PortablePath.problem(entry.path)
        }
    }

    /// A `multipart/byteranges` body as the client reads a mirror's answer (boundary `B`): each
    /// part it returns holds exactly its range's length, taken from the body.
    static func multipart(_ bytes: [UInt8]) throws {
        guard let parts = try? MultipartByteRanges.parse(bytes, boundary: "B") else { return }
        for part in parts {
            try require(
                Int64(part.bytes.count) == part.range.upperBound - part.range.lowerBound + 1,
                "a part of \(part.range) holds \(part.bytes.count) bytes"
            )
            try require(part.bytes.startIndex >= 0 && part.bytes.endIndex <= bytes.count, "a part lies outside the body")
        }
    }
}
