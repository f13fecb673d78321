import DepotFixtures
import Foundation
import Testing

@testable import DepotClient

/// Depot's one resumable download (``PartialFile``), which the client's URLSession transport and
/// `depot mirror`'s AsyncHTTPClient one both drive: what it asks for, which answers it takes,
/// and the fetch-again-whole rule, as tables, without a socket.
@Suite("Partial file")
struct PartialFileTests {
    static let content = Data((0..<100).map { UInt8($0) })

    /// A partial file holding the first `held` bytes of ``content``, and `tag` kept beside it.
    static func partial(in folder: URL, held: Int, tag: String?) throws -> PartialFile {
        let url = folder.appendingPathComponent("f.partial")
        try content.prefix(held).write(to: url)
        if let tag { try Data(tag.utf8).write(to: url.appendingPathExtension("etag")) }
        return try PartialFile(at: url, source: "/blobs/f", expectedLength: Int64(content.count))
    }

    @Test(
        "the request for the rest",
        arguments: [
            // held, kept tag, assumed tag → Range, If-Range
            (0, nil, "\"sha\"", nil, nil),
            (40, nil, "\"sha\"", "bytes=40-", "\"sha\""),
            (40, "\"nginx-tag\"", "\"sha\"", "bytes=40-", "\"nginx-tag\""),
            (40, nil, nil, nil, nil),  // no tag to resume under: the whole file
            (150, "\"t\"", "\"sha\"", nil, nil),  // more than promised: the whole file again
        ] as [(Int, String?, String?, String?, String?)]
    )
    func request(held: Int, kept: String?, assumed: String?, range: String?, ifRange: String?) async throws {
        try await withTemporaryDirectory { folder in
            let partial = try Self.partial(in: folder, held: held, tag: kept)
            let headers = Dictionary(uniqueKeysWithValues: partial.requestHeaders(assumedTag: assumed).map { ($0.name, $0.value) })
            #expect(headers["Range"] == range)
            #expect(headers["If-Range"] == ifRange)
        }
    }

    /// Issue 57, cause 1: the tag kept beside a partial file is read through the folder's
    /// descriptor. A link planted in its place, to a file outside holding another tag, is not
    /// read: the request resumes under the tag assumed, and the link's target is untouched.
    @Test("a link in place of the kept tag is not read; the assumed tag is asked with")
    func linkedTag() async throws {
        try await withTemporaryDirectory { root in
            let folder = root.appendingPathComponent("partial")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let outside = root.appendingPathComponent("outside")
            try Data("\"planted\"".utf8).write(to: outside)
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("f.partial.etag"), withDestinationURL: outside)
            let partial = try Self.partial(in: folder, held: 40, tag: nil)
            let headers = Dictionary(uniqueKeysWithValues: partial.requestHeaders(assumedTag: "\"sha\"").map { ($0.name, $0.value) })
            #expect(headers["If-Range"] == "\"sha\"", "the tag was read through the link")
            #expect(throws: SyncError.self) { try partial.begin(status: 200, contentRange: nil, entityTag: "\"new\"") }
            PartialFile.discard(partial.url)
            #expect(try Data(contentsOf: outside) == Data("\"planted\"".utf8), "the link's target was written or removed")
            #expect(!FileManager.default.fileExists(atPath: partial.url.path))
        }
    }

    /// An answer to a request for the rest from byte 40, and what the file holds after it and
    /// its body (the rest from 40 on a 206, everything on a 200).
    @Test(
        "the answers taken, and the file they leave",
        arguments: [
            // status, Content-Range, ETag → taken as resumed, tag kept after
            (206, "bytes 40-99/100", nil, true, "\"old\""),
            (200, nil, "\"new\"", false, "\"new\""),
            (200, nil, "W/\"weak\"", false, nil),  // a weak tag cannot be used by If-Range
        ] as [(Int, String?, String?, Bool, String?)]
    )
    func taken(status: Int, contentRange: String?, entityTag: String?, resumed: Bool, kept: String?) async throws {
        try await withTemporaryDirectory { folder in
            let partial = try Self.partial(in: folder, held: 40, tag: "\"old\"")
            try partial.begin(status: status, contentRange: contentRange, entityTag: entityTag)
            try partial.append(resumed ? Self.content.dropFirst(40) : Self.content)
            #expect(partial.resumed == resumed)
            #expect(try Data(contentsOf: partial.url) == Self.content)
            #expect((try? String(contentsOf: partial.tagFile, encoding: .utf8)) == kept)
        }
    }

    @Test(
        "the answers refused: another status, a 206 from the wrong place or of another length",
        arguments: [
            (206, "bytes 0-99/100"),
            (206, "bytes 40-99/200"),
            (206, nil),
            (304, nil),
            (416, "bytes */100"),
            (503, nil),
        ] as [(Int, String?)]
    )
    func refused(status: Int, contentRange: String?) async throws {
        try await withTemporaryDirectory { folder in
            let partial = try Self.partial(in: folder, held: 40, tag: "\"old\"")
            #expect(throws: SyncError.self) { try partial.begin(status: status, contentRange: contentRange, entityTag: nil) }
            #expect(try Data(contentsOf: partial.url) == Self.content.prefix(40))
        }
    }

    @Test("no more than the promised length is written")
    func bounded() async throws {
        try await withTemporaryDirectory { folder in
            let partial = try Self.partial(in: folder, held: 40, tag: "\"old\"")
            try partial.begin(status: 206, contentRange: "bytes 40-99/100", entityTag: nil)
            try partial.append(Self.content[40..<90])
            #expect(throws: SyncError.self) { try partial.append(Data(count: 11)) }
            #expect(try Data(contentsOf: partial.url).count == 90)
        }
    }

    @Test(
        "a download that resumed and fails its check is fetched again whole, once; one that did not is refused at once",
        arguments: [
            // whether each attempt resumed, whether each check passes → attempts made, success
            ([true, false], [false, true], 2, true),
            ([true, false], [false, false], 2, false),
            ([false], [false], 1, false),
            ([true], [true], 1, true),
        ] as [([Bool], [Bool], Int, Bool)]
    )
    func fetchAgain(resumes: [Bool], checks: [Bool], attempts expected: Int, succeeds: Bool) async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("f.partial")
            var attempts = 0
            var checked = 0
            struct Refused: Error {}
            do {
                _ = try await PartialFile.fetchChecked(
                    url,
                    attempt: { () -> Bool in
                        attempts += 1
                        try Data("bytes".utf8).write(to: url)
                        return resumes[attempts - 1]
                    },
                    resumed: { $0 },
                    check: {
                        checked += 1
                        if !checks[checked - 1] { throw Refused() }
                    }
                )
                #expect(succeeds)
                #expect(FileManager.default.fileExists(atPath: url.path))
            } catch is Refused {
                #expect(!succeeds)
                #expect(!FileManager.default.fileExists(atPath: url.path), "a refused download is discarded")
            }
            #expect(attempts == expected)
        }
    }
}
