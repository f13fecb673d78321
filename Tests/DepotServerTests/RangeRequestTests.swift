import DepotHTTP
import DepotServer
import DepotTestSupport
import Foundation
import Testing

/// Range requests (RFC 9110 §14, §15.3.7, §15.5.17), in process: the direct path sends the
/// same answers, with its access log on and off (DirectResponderTests.sameAnswers asks it these
/// ranges).
@Suite("Range requests")
struct RangeRequestTests {
    static let length = Fixture.noise.count  // 100 000
    static func slice(_ range: ClosedRange<Int>) -> Data { Fixture.noise.subdata(in: range.lowerBound..<(range.upperBound + 1)) }

    static let singleRanges = [
        ("bytes=0-499", 0...499),
        ("bytes=99990-", 99_990...99_999),
        ("bytes=-10", 99_990...99_999),
        ("bytes=99000-2000000", 99_000...99_999),
        ("BYTES=5-5", 5...5),
        ("bytes=-200000", 0...99_999),
    ]

    @Test("single ranges give 206 with Content-Range and the exact bytes", arguments: singleRanges)
    func single(range: (header: String, expected: ClosedRange<Int>)) async throws {
        let (header, expected) = range
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", "/noise.bin", headers: [("Range", header)])
                #expect(response.status == 206)
                #expect(response.header("Content-Range") == "bytes \(expected.lowerBound)-\(expected.upperBound)/\(Self.length)")
                #expect(response.header("Content-Length") == "\(expected.count)")
                #expect(response.header("Content-Type") == "application/octet-stream")
                #expect(response.header("ETag") == "\"\(Fixture.sha256(Fixture.noise))\"")
                #expect(Data(response.body) == Self.slice(expected))
            }
        }
    }

    @Test(
        "unsatisfiable ranges give 416 with bytes */length",
        arguments: ["bytes=100000-", "bytes=-0", "bytes=200000-300000", "bytes=100000-100001,-0"]
    )
    func unsatisfiable(header: String) async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", "/noise.bin", headers: [("Range", header)])
                #expect(response.status == 416)
                #expect(response.header("Content-Range") == "bytes */\(Self.length)")
                #expect(response.header("Cache-Control") == nil)
                #expect(try await connection.request("GET", "/index.html").status == 200)
            }
        }
    }

    @Test("invalid or foreign Range fields are ignored (200)", arguments: ["bytes=5-1", "bytes=abc", "items=0-1", "bytes 0-1", "bytes=0-1;x"])
    func ignored(header: String) async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", "/noise.bin", headers: [("Range", header)])
                #expect(response.status == 200)
                #expect(response.body.count == Self.length)
            }
        }
    }

    @Test("HEAD ignores Range (§14.2)")
    func headIgnoresRange() async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let response = try await connection.request("HEAD", "/noise.bin", headers: [("Range", "bytes=0-9")])
                #expect(response.status == 200)
                #expect(response.header("Content-Length") == "\(Self.length)")
                #expect(response.header("Content-Range") == nil)
            }
        }
    }

    @Test("several ranges give multipart/byteranges with the exact Content-Length (§14.6)")
    func multipart() async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", "/noise.bin", headers: [("Range", "bytes=90000-90099,0-9,-5")])
                #expect(response.status == 206)
                let contentType = try #require(response.header("Content-Type"))
                #expect(contentType.hasPrefix("multipart/byteranges; boundary="))
                let boundary = String(contentType.dropFirst("multipart/byteranges; boundary=".count))
                #expect(response.header("Content-Range") == nil)
                #expect(response.header("Content-Length") == "\(response.body.count)")

                var expected = Data()
                for range in [90_000...90_099, 0...9, 99_995...99_999] {
                    expected += Data("\r\n--\(boundary)\r\n".utf8)
                    expected += Data("Content-Type: application/octet-stream\r\n".utf8)
                    expected += Data("Content-Range: bytes \(range.lowerBound)-\(range.upperBound)/\(Self.length)\r\n\r\n".utf8)
                    expected += Self.slice(range)
                }
                expected += Data("\r\n--\(boundary)--\r\n".utf8)
                #expect(Data(response.body) == expected)
            }
        }
    }

    @Test("overlapping and adjacent ranges are coalesced into one part")
    func coalesced() async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let response = try await connection.request("GET", "/noise.bin", headers: [("Range", "bytes=100-199,150-299,300-399")])
                #expect(response.status == 206)
                #expect(response.header("Content-Range") == "bytes 100-399/\(Self.length)")
                #expect(Data(response.body) == Self.slice(100...399))
            }
        }
    }

    @Test("too many ranges, or ranges adding up past the whole, are answered with 200")
    func amplification() async throws {
        try await InProcessServer.with(configuration: .init(rangeLimits: .init(maxRanges: 3)), prepare: Fixture.standardFolder) { server in
            try await server.connection { connection in
                let four = try await connection.request("GET", "/noise.bin", headers: [("Range", "bytes=0-0,10-10,20-20,30-30")])
                #expect(four.status == 200)
                #expect(four.body.count == Self.length)
                let three = try await connection.request("GET", "/noise.bin", headers: [("Range", "bytes=0-0,10-10,20-20")])
                #expect(three.status == 206)
                let overlapping = try await connection.request("GET", "/noise.bin", headers: [("Range", "bytes=0-,0-,0-")])
                #expect(overlapping.status == 200)
                #expect(overlapping.body.count == Self.length)
            }
        }
    }

    @Test("ranges of the gzip variant select encoded bytes")
    func gzipRanges() async throws {
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let whole = try await connection.request("GET", "/text.txt", headers: [("Accept-Encoding", "gzip")])
                let tag = try #require(whole.header("ETag"))
                let part = try await connection.request(
                    "GET",
                    "/text.txt",
                    headers: [("Accept-Encoding", "gzip"), ("Range", "bytes=10-"), ("If-Range", tag)]
                )
                #expect(part.status == 206)
                #expect(part.header("Content-Encoding") == "gzip")
                #expect(part.header("Vary") == "Accept-Encoding")
                #expect(part.header("Content-Range") == "bytes 10-\(whole.body.count - 1)/\(whole.body.count)")
                #expect(part.body == Array(whole.body[10...]))
            }
        }
    }

    @Test("If-Range with the current strong ETag honours Range; anything else sends 200 (§13.1.5)")
    func ifRangeTags() async throws {
        let etag = "\"\(Fixture.sha256(Fixture.noise))\""
        try await InProcessServer.standard { server in
            try await server.connection { connection in
                let matching = try await connection.request("GET", "/noise.bin", headers: [("Range", "bytes=0-9"), ("If-Range", etag)])
                #expect(matching.status == 206)
                for other in ["\"stale\"", "W/\(etag)", "not a validator"] {
                    let response = try await connection.request("GET", "/noise.bin", headers: [("Range", "bytes=0-9"), ("If-Range", other)])
                    #expect(response.status == 200, "If-Range: \(other)")
                    #expect(response.body.count == Self.length)
                }
            }
        }
    }

    static func folderWithFreshFile(_ folder: URL) throws {
        try Fixture.standardFolder(folder)
        // Modified "in the future": Last-Modified is capped at the scan time, in the scan's own second.
        try folder.write(Data("written just now\n".utf8), to: "fresh.txt", modified: Date().addingTimeInterval(3600))
    }

    @Test("If-Range with a date matches only a strong Last-Modified, exactly (§13.1.5, §8.8.2.2)")
    func ifRangeDates() async throws {
        try await InProcessServer.with(prepare: Self.folderWithFreshFile) { server in
            try await server.connection { connection in
                let old = "Tue, 14 Nov 2023 22:13:20 GMT"
                let exact = try await connection.request("GET", "/noise.bin", headers: [("Range", "bytes=0-9"), ("If-Range", old)])
                #expect(exact.status == 206)
                let later = try await connection.request(
                    "GET",
                    "/noise.bin",
                    headers: [("Range", "bytes=0-9"), ("If-Range", "Tue, 14 Nov 2023 22:13:21 GMT")]
                )
                #expect(later.status == 200)

                let fresh = try await connection.request("GET", "/fresh.txt")
                let freshDate = try #require(fresh.header("Last-Modified"))
                let weak = try await connection.request("GET", "/fresh.txt", headers: [("Range", "bytes=0-4"), ("If-Range", freshDate)])
                #expect(weak.status == 200, "a Last-Modified in the second of the scan is weak")
            }
        }
    }
}
