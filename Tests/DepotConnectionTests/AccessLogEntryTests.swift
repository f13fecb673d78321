import DepotHTTP
import Foundation
import Logging
import Synchronization
import Testing

@testable import DepotConnection

/// The access-log line, byte for byte, in both formats; and the bounded buffer behind it.
@Suite("Access-log lines")
struct AccessLogEntryTests {
    static let entry = AccessLogEntry(
        client: "203.0.113.9",
        scheme: "https",
        method: "GET",
        target: "/files/db/catalog.sqlite?v=2",
        version: "HTTP/1.1",
        referer: nil,
        userAgent: "Depot/1 (iOS)",
        requestID: "abc123",
        status: 206,
        bytesSent: 1_048_576,
        nanoseconds: 12_345_678,
        endedAt: 1_795_855_200  // 2026-11-28T08:40:00Z
    )

    static func line(_ entry: AccessLogEntry, _ format: AccessLogConfiguration.Format) -> String {
        var bytes: [UInt8] = []
        var clock = AccessLogClock()
        entry.write(format, into: &bytes, clock: &clock)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func with(_ change: (inout AccessLogEntry) -> Void) -> AccessLogEntry {
        var entry = Self.entry
        change(&entry)
        return entry
    }

    @Test(
        "each entry gives exactly this line",
        arguments: [
            (
                entry, AccessLogConfiguration.Format.depot,
                "2026-11-28T08:40:00Z request id=abc123 client=203.0.113.9 scheme=https method=GET path=/files/db/catalog.sqlite status=206 bytes=1048576 ms=12.345\n"
            ),
            (
                entry, .combined,
                "203.0.113.9 - - [28/Nov/2026:08:40:00 +0000] \"GET /files/db/catalog.sqlite?v=2 HTTP/1.1\" 206 1048576 \"-\" \"Depot/1 (iOS)\"\n"
            ),
            // A client that left before any answer: 499, nothing sent, no id; sub-millisecond times keep their zeros.
            (
                with {
                    $0.status = 499
                    $0.bytesSent = 0
                    $0.requestID = nil
                    $0.nanoseconds = 7_000
                },
                .depot,
                "2026-11-28T08:40:00Z request id=- client=203.0.113.9 scheme=https method=GET path=/files/db/catalog.sqlite status=499 bytes=0 ms=0.007\n"
            ),
            // Quotes, backslashes, control and non-ASCII bytes are escaped as nginx escapes them.
            (
                with {
                    $0.target = "/a\"b\\c"
                    $0.userAgent = "x\ny é"
                    $0.referer = "https://example.com/"
                },
                .combined,
                "203.0.113.9 - - [28/Nov/2026:08:40:00 +0000] \"GET /a\\x22b\\x5Cc HTTP/1.1\" 206 1048576 \"https://example.com/\" \"x\\x0Ay \\xC3\\xA9\"\n"
            ),
            // In key=value pairs a space would end the value: escaped too.
            (
                with { $0.target = "/a b" }, .depot,
                "2026-11-28T08:40:00Z request id=abc123 client=203.0.113.9 scheme=https method=GET path=/a\\x20b status=206 bytes=1048576 ms=12.345\n"
            ),
        ]
    )
    func lines(entry: AccessLogEntry, format: AccessLogConfiguration.Format, expected: String) {
        #expect(Self.line(entry, format) == expected)
    }

    @Test("a full buffer drops lines and counts them; a flush writes the rest whole")
    func boundedBuffer() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("access-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let dropped = Atomic<Int>(0)
        let writer = try AccessLogWriter(
            configuration: AccessLogConfiguration(path: path, bufferBytes: 100),
            dropped: { dropped.add($0, ordering: .relaxed) },
            logger: Logger(label: "test")
        )
        let line = Array(String(repeating: "x", count: 39).utf8) + [UInt8(ascii: "\n")]
        for _ in 0..<3 { writer.append(line) }
        await writer.flush()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == String(repeating: String(repeating: "x", count: 39) + "\n", count: 2))
        #expect(dropped.load(ordering: .relaxed) == 1)
        // Room again after the flush.
        writer.append(line)
        await writer.flush()
        #expect(try String(contentsOfFile: path, encoding: .utf8).count == 120)
    }

    @Test("on standard output, writes stay within PIPE_BUF at line ends")
    func pipeSizedWrites() throws {
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        defer { close(pipe[0]) }
        let lines: [UInt8] = (0..<200).flatMap { index -> [UInt8] in Array("line \(index) \(String(repeating: "y", count: 40))\n".utf8) }
        #expect(AccessLogWriter.writeLines(lines, to: pipe[1], pipeSized: true) == 0)
        close(pipe[1])
        var read: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = Glibc.read(pipe[0], &chunk, chunk.count)
            guard count > 0 else { break }
            read += chunk[0..<count]
        }
        #expect(read == lines)
    }
}
