import Crypto
import DepotManifest
import DepotTestSupport
import Foundation

/// The documents of a release as a server (or a hostile mirror) would serve them, written into
/// a folder a plain static server serves: `channels/{name}`, `releases/{id}`, `pages/{sha256}`
/// and `blobs/{sha256}`. The page and release names are the SHA-256 of the bytes written, as a
/// client checks, unless a test breaks them on purpose.
struct FakeRelease {
    var entries: [ReleaseEntry]
    var channel = "stable"
    var number: Int64 = 1
    var serial: Int64 = 1
    var expires = "Fri, 01 Jan 2100 00:00:00 GMT"
    /// Signs the channel document when set.
    var key: Curve25519.Signing.PrivateKey?

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// An entry for `content` at `path`.
    static func entry(_ path: String, _ content: Data, sha256: String? = nil, size: Int64? = nil) -> ReleaseEntry {
        Fixture.entry(path, size: size ?? Int64(content.count), sha256: sha256 ?? Fixture.sha256(content), md5: Fixture.md5(content))
    }

    var page: Data { (try? Self.encoder.encode(ReleasePage(entries: entries.sorted { $0.path < $1.path }))) ?? Data() }

    var release: Data {
        let document = ReleaseDocument(
            number: number,
            parent: nil,
            createdAt: "Tue, 14 Nov 2023 22:13:20 GMT",
            files: Int64(entries.count),
            bytes: entries.reduce(0) { $0 + $1.size },
            pageBits: 0,
            pages: [Fixture.sha256(page)]
        )
        return (try? Self.encoder.encode(document)) ?? Data()
    }

    var releaseID: String { Fixture.sha256(release) }

    var channelDocument: Data {
        let document = Fixture.channelDocument(
            channel: channel,
            release: releaseID,
            number: number,
            serial: serial,
            expires: expires,
            signedBy: key.map { [$0] } ?? []
        )
        return (try? Self.encoder.encode(document)) ?? Data()
    }

    /// Writes the documents, and `blobs` under their SHA-256, into `folder`.
    func write(to folder: URL, blobs: [Data] = []) throws {
        _ = try folder.write(channelDocument, to: "channels/\(channel)")
        _ = try folder.write(release, to: "releases/\(releaseID)")
        _ = try folder.write(page, to: "pages/\(Fixture.sha256(page))")
        for blob in blobs { _ = try folder.write(blob, to: "blobs/\(Fixture.sha256(blob))") }
    }
}
