import DepotAPI
import Foundation
import Testing

/// The publisher API's replies as the CLI reads them: whole, or not at all. Before `DepotAPI`
/// the CLI read them as dictionaries with defaults, and a renamed field printed "release 0".
@Suite("Publisher API replies")
struct APIRepliesTests {
    static let release = ReleaseInfo(id: "ab", number: 7, url: "/releases/ab", channel: "stable", createdAt: "now", files: 2, bytes: 9)

    /// Each reply as the server writes it, and a decoder for it.
    static var replies: [(String, Data, (Data) throws -> Void)] {
        [
            encoded(CommitReply(release: release, created: true, channel: "stable", serial: 3, files: [], unchanged: 0, removed: [])),
            encoded(MoveReply(channel: "stable", serial: 4, from: nil, to: release, added: 1, changed: 0, removed: 0)),
            encoded(ReleaseList(releases: [release])),
            encoded(ChannelList(channels: [ChannelInfo(name: "stable", serial: 1, updatedAt: "now", release: release)])),
            encoded(PublishReply(path: "a", version: 1, size: 1, sha256: "s", md5: "m", etag: "\"s\"", gzipSize: nil, unchanged: false, serial: 1)),
            encoded(MissingBlobsReply(missing: ["s"])),
        ]
    }

    static func encoded<Reply: Codable & Equatable>(_ reply: Reply) -> (String, Data, (Data) throws -> Void) {
        let data = try! APIJSON.encoder.encode(reply)
        return (
            "\(Reply.self)", data,
            { bytes in
                let decoded = try APIJSON.decode(Reply.self, from: bytes)
                #expect(decoded == reply)
            }
        )
    }

    @Test("every reply decodes as written, and fails to decode once any of its fields is renamed")
    func strictDecoding() throws {
        for (name, data, decode) in Self.replies {
            try decode(data)
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(name)")
            // Renaming an optional field leaves a valid reply (the field is absent): only the
            // ones every reply must carry.
            for key in object.keys {
                var renamed = object
                renamed["\(key)Renamed"] = renamed.removeValue(forKey: key)
                let bytes = try JSONSerialization.data(withJSONObject: renamed)
                if ["gzipSize", "from", "release"].contains(key) { continue }
                #expect(throws: DecodingError.self, "\(name).\(key)") { try decode(bytes) }
            }
        }
    }

    @Test("a commit reply written a file at a time is the bytes the encoder writes, with and without a release", arguments: [true, false])
    func streamedCommitReply(withRelease: Bool) throws {
        let files = (0..<5_000).map {
            CommitReply.FileVersion(path: "a/\($0).bin", version: 1, size: Int64($0), sha256: "s\($0)", gzipSize: $0 % 2 == 0 ? nil : 7)
        }
        let reply = CommitReply(
            release: withRelease ? Self.release : nil,
            created: withRelease,
            channel: "stable",
            serial: 3,
            files: files,
            unchanged: 2,
            removed: ["x/y", "z"]
        )
        var bytes: [UInt8] = []
        var stream = JSONStream { bytes += $0 }
        try reply.encode(into: &stream)
        try stream.flush()
        #expect(Data(bytes) == (try APIJSON.encoder.encode(reply)))
    }
}
