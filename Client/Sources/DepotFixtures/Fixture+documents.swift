import Crypto
import DepotManifest
import DepotSigning
import Foundation

/// The one builder of each document the tests write by hand: a release entry, a channel document
/// and its signatures. Every field a test does not name has a fixed value.
extension Fixture {
    /// An MD5 a test does not check: 32 zeros.
    public static let anyMD5 = String(repeating: "0", count: 32)
    /// A `Last-Modified` of entries built by ``entry(_:size:sha256:version:md5:contentType:lastModified:gzip:patches:blocks:brotli:zstd:)``.
    public static let lastModified = "Tue, 14 Nov 2023 22:13:20 GMT"
    /// An `expires` of channel documents built by ``channelDocument(channel:release:number:serial:expires:root:critical:minimumClientVersion:rollout:fallbacks:signedBy:)``
    /// (tests that judge expiry give their own, and their own clock).
    public static let expires = "Mon, 30 Nov 2026 12:00:00 GMT"

    /// A SHA-256 in hex: `digit` 64 times.
    public static func digest(repeating digit: Character) -> String { String(repeating: digit, count: 64) }

    /// A release entry: version 1 of `path`, of `size` bytes with `sha256`, no variants or patches
    /// unless given.
    public static func entry(
        _ path: String = "a.bin",
        size: Int64 = 1,
        sha256: String = Fixture.digest(repeating: "a"),
        version: Int64 = 1,
        md5: String = Fixture.anyMD5,
        contentType: String = "application/octet-stream",
        lastModified: String = Fixture.lastModified,
        gzip: ReleaseEntry.Variant? = nil,
        patches: [ReleaseEntry.Patch]? = nil,
        blocks: ReleaseEntry.Variant? = nil,
        brotli: ReleaseEntry.Variant? = nil,
        zstd: ReleaseEntry.Variant? = nil
    ) -> ReleaseEntry {
        ReleaseEntry(
            path: path,
            version: version,
            size: size,
            sha256: sha256,
            md5: md5,
            contentType: contentType,
            lastModified: lastModified,
            gzip: gzip,
            patches: patches,
            blocks: blocks,
            brotli: brotli,
            zstd: zstd
        )
    }

    /// A release entry for `content` at `path`: its size, SHA-256 and MD5.
    public static func entry(_ path: String, content: some DataProtocol) -> ReleaseEntry {
        entry(path, size: Int64(content.count), sha256: sha256(content), md5: md5(content))
    }

    /// A channel document, signed by each of `keys` (none by default).
    public static func channelDocument(
        channel: String = "stable",
        release: String,
        number: Int64 = 1,
        serial: Int64 = 1,
        expires: String = Fixture.expires,
        root: Int64? = nil,
        critical: Bool? = nil,
        minimumClientVersion: String? = nil,
        rollout: ChannelDocument.Rollout? = nil,
        fallbacks: [ChannelDocument.Fallback]? = nil,
        signedBy keys: [Curve25519.Signing.PrivateKey] = []
    ) -> ChannelDocument {
        ChannelDocument(
            channel: channel,
            release: release,
            number: number,
            serial: serial,
            expires: expires,
            root: root,
            critical: critical,
            minimumClientVersion: minimumClientVersion,
            rollout: rollout,
            fallbacks: fallbacks
        )
        .signed(by: keys)
    }
}

extension ChannelDocument {
    /// This document with its signatures replaced by one of each of `keys` over its signed text,
    /// as a server's channel keys sign it.
    public func signed(by keys: [Curve25519.Signing.PrivateKey]) -> ChannelDocument {
        var document = self
        document.signatures = keys.map { try! Ed25519.sign(document.signedText, with: $0) }
        return document
    }
}
