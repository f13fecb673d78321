import DepotHTTP

/// One request as the access log records it, once its response has ended: written by
/// ``AccessLogEntry/write(_:into:clock:)`` in either format, byte by byte, without swift-log's
/// metadata dictionary or `String` formatting (one line used to cost as much as the rest of an
/// answer).
struct AccessLogEntry: Sendable, Equatable {
    /// The address the log names as the client (``ForwardedClient/address(peer:forwardedFor:trustedProxies:)``).
    var client: String
    /// `http` or `https` (``ForwardedClient/scheme(peer:forwardedProto:trustedProxies:)``).
    var scheme: String
    var method: String
    /// The request target as sent, query included.
    var target: String
    /// `HTTP/1.1` or `HTTP/1.0`.
    var version: String
    var referer: String?
    var userAgent: String?
    /// The `X-Request-Id` the response carried; `nil` when it had none.
    var requestID: String?
    /// The status sent; 499 (nginx's convention) when the client left before any response.
    var status: Int
    /// Content bytes that reached the socket: for a cut download, what went out before the cut.
    var bytesSent: Int64
    /// From the request head's arrival to the last byte handed to the kernel, in nanoseconds.
    var nanoseconds: Int64
    /// When the response ended, in seconds since 1970 (UTC).
    var endedAt: Int64

    /// Appends the line, with its newline, in `format`. Bytes a log reader could take for a
    /// field's end (space in `depot` values, `"` and `\`, control and non-ASCII bytes) are
    /// written as `\xHH`, as nginx escapes them.
    func write(_ format: AccessLogConfiguration.Format, into line: inout [UInt8], clock: inout AccessLogClock) {
        switch format {
        case .depot:
            line.append(contentsOf: clock.iso8601(endedAt))
            line.append(contentsOf: " request id=".utf8)
            Self.escaped((requestID ?? "-").utf8, into: &line, escapingSpace: true)
            Self.pair(" client=", client.utf8, into: &line)
            Self.pair(" scheme=", scheme.utf8, into: &line)
            Self.pair(" method=", method.utf8, into: &line)
            Self.pair(" path=", target.utf8.prefix { $0 != UInt8(ascii: "?") }, into: &line)
            line.append(contentsOf: " status=".utf8)
            Self.decimal(Int64(status), into: &line)
            line.append(contentsOf: " bytes=".utf8)
            Self.decimal(bytesSent, into: &line)
            line.append(contentsOf: " ms=".utf8)
            Self.milliseconds(nanoseconds, into: &line)
        case .combined:
            Self.escaped(client.utf8, into: &line, escapingSpace: true)
            line.append(contentsOf: " - - [".utf8)
            line.append(contentsOf: clock.common(endedAt))
            line.append(contentsOf: "] \"".utf8)
            Self.escaped(method.utf8, into: &line, escapingSpace: false)
            line.append(UInt8(ascii: " "))
            Self.escaped(target.utf8, into: &line, escapingSpace: false)
            line.append(UInt8(ascii: " "))
            Self.escaped(version.utf8, into: &line, escapingSpace: false)
            line.append(contentsOf: "\" ".utf8)
            Self.decimal(Int64(status), into: &line)
            line.append(UInt8(ascii: " "))
            Self.decimal(bytesSent, into: &line)
            Self.quoted(referer, into: &line)
            Self.quoted(userAgent, into: &line)
        }
        line.append(UInt8(ascii: "\n"))
    }

    private static func quoted(_ value: String?, into line: inout [UInt8]) {
        line.append(contentsOf: " \"".utf8)
        escaped((value ?? "-").utf8, into: &line, escapingSpace: false)
        line.append(UInt8(ascii: "\""))
    }

    /// ` key=value`, `-` for an empty value.
    private static func pair(_ key: StaticString, _ value: some Collection<UInt8>, into line: inout [UInt8]) {
        line.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        if value.isEmpty {
            line.append(UInt8(ascii: "-"))
        } else {
            escaped(value, into: &line, escapingSpace: true)
        }
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    static func escaped(_ value: some Sequence<UInt8>, into line: inout [UInt8], escapingSpace: Bool) {
        for byte in value {
            if byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (escapingSpace && byte == 0x20) {
                line.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            } else {
                line.append(byte)
            }
        }
    }

    static func decimal(_ value: Int64, into line: inout [UInt8]) {
        if value < 0 {
            line.append(UInt8(ascii: "-"))
            decimal(value == .min ? .max : -value, into: &line)
            return
        }
        if value >= 10 { decimal(value / 10, into: &line) }
        line.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// `nanoseconds` as milliseconds with three decimals (`0.120`).
    static func milliseconds(_ nanoseconds: Int64, into line: inout [UInt8]) {
        let microseconds = max(0, nanoseconds) / 1000
        decimal(microseconds / 1000, into: &line)
        line.append(UInt8(ascii: "."))
        let fraction = microseconds % 1000
        if fraction < 100 { line.append(UInt8(ascii: "0")) }
        if fraction < 10 { line.append(UInt8(ascii: "0")) }
        decimal(fraction, into: &line)
    }
}

/// The timestamps of access-log lines (``HTTPDate/iso8601`` and ``HTTPDate/commonLogFormat``),
/// formatted once a second. Owned by one connection.
struct AccessLogClock {
    private var iso = (second: Int64.min, text: [UInt8]())
    private var common = (second: Int64.min, text: [UInt8]())

    /// `2026-11-24T11:47:32Z`.
    mutating func iso8601(_ seconds: Int64) -> [UInt8] {
        if seconds != iso.second { iso = (seconds, Array(HTTPDate(secondsSince1970: seconds).iso8601.utf8)) }
        return iso.text
    }

    /// `24/Nov/2026:11:47:32 +0000`.
    mutating func common(_ seconds: Int64) -> [UInt8] {
        if seconds != common.second { common = (seconds, Array(HTTPDate(secondsSince1970: seconds).commonLogFormat.utf8)) }
        return common.text
    }
}
