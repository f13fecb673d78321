import Crypto
import DepotManifest
import DepotSigning
import DepotTestSupport
import Foundation
import Testing

/// `depot mirror` against a source that lies: names that climb out of the folder, and a chain
/// of forged roots. The source is a folder a Depot application serves as it is (`public/evil`),
/// in process, as `depot mirror` runs.
@Suite("depot mirror against a hostile source")
struct HostileMirrorSourceTests {
    /// An IMF-fixdate a day from now.
    static var tomorrow: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date().addingTimeInterval(86_400))
    }

    /// Writes into `public/{source}` a channel `stable` whose one release has one page listing
    /// `entry`; the channel document is `sign`ed as it likes. Returns the release's id.
    @discardableResult
    static func writeSource(
        _ source: String,
        in root: URL,
        entries: [ReleaseEntry],
        channelRoot: Int64? = nil,
        sign: (inout ChannelDocument) throws -> Void = { _ in }
    ) throws -> String {
        let page = try JSONEncoder().encode(ReleasePage(entries: entries))
        let pageID = Fixture.sha256(page)
        let release = try JSONEncoder().encode(
            ReleaseDocument(number: 1, parent: nil, createdAt: "", files: Int64(entries.count), bytes: 0, pageBits: 0, pages: [pageID])
        )
        let releaseID = Fixture.sha256(release)
        var document = Fixture.channelDocument(release: releaseID, expires: tomorrow, root: channelRoot)
        try sign(&document)
        try root.write(page, to: "public/\(source)/pages/\(pageID)")
        try root.write(release, to: "public/\(source)/releases/\(releaseID)")
        try root.write(try JSONEncoder().encode(document), to: "public/\(source)/channels/stable")
        return releaseID
    }

    /// Runs a server whose public folder holds, from its first scan, what `write` puts below
    /// `root/public` (no wait on a rescan, which a loaded test process can hold back for minutes),
    /// for `body` with the folder, the server's URL and the server.
    static func withSources(
        _ write: (URL) throws -> Void,
        _ body: (URL, String, InProcessServer) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { root in
            try FileManager.default.createDirectory(at: root.appendingPathComponent("public"), withIntermediateDirectories: true)
            try write(root)
            try await InProcessCLI.serve(in: root) { server, app in try await body(root, server, app) }
        }
    }

    static func entry(sha256: String, gzip: String? = nil) -> ReleaseEntry {
        Fixture.entry(sha256: sha256, lastModified: "", gzip: gzip.map { .init(size: 5, sha256: $0) })
    }

    @Test("a page whose names climb out of the folder is refused; the files it names are untouched, nothing is written outside")
    func namesOutsideTheFolder() async throws {
        let cases: [(String, ReleaseEntry)] = [
            ("gzip", Self.entry(sha256: Fixture.sha256(Data("x".utf8)), gzip: "../../victim")),
            ("blob", Self.entry(sha256: "../../victim")),
        ]
        try await Self.withSources { root in
            for (name, entry) in cases { try Self.writeSource(name, in: root, entries: [entry]) }
        } _: { root, server, _ in
            let victim = try root.write(Data("precious\n".utf8), to: "victim")
            for (name, _) in cases {
                let result = try await InProcessCLI.run(
                    ["mirror", "--from", "\(server)/\(name)", "--to", "out-\(name)", "--without-signature-checks"],
                    token: nil,
                    in: root
                )
                #expect(result.status == 1, "\(name): \(result.output)")
                #expect(result.errors.contains("is not 64 lower-case hex digits"), "\(name): \(result.errors)")
                #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
                let written = try Fixture.files(below: root.appendingPathComponent("out-\(name)")).filter { !$0.hasPrefix(".") }
                #expect(written.isEmpty, "\(name): \(written)")
            }
            // Beside the server's, the source's and the runs' own files, only the victim.
            let others = try Fixture.files(below: root).filter { path in !["public/", "out-", "data/", "run-", "."].contains { path.hasPrefix($0) } }
            #expect(others == ["victim"])
        }
    }

    @Test("without a trust flag the mirror refuses to run, unless told it runs without signature checks")
    func trustRequired() async throws {
        try await withTemporaryDirectory { root in
            let result = try await InProcessCLI.run(["mirror", "--from", "http://127.0.0.1:9", "--to", "out"], token: nil, in: root)
            #expect(result.status != 0)
            #expect(result.errors.contains("--without-signature-checks"), "\(result.errors)")
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("out").path))
        }
    }

    /// A root signed by `signers`, naming `rootKey` and `channelKey`.
    static func root(
        _ version: Int64,
        rootKey: Curve25519.Signing.PrivateKey,
        channelKey: Curve25519.Signing.PrivateKey,
        signers: [Curve25519.Signing.PrivateKey]
    ) throws -> Data {
        try JSONEncoder().encode(Fixture.root(version: version, expires: tomorrow, rootKey: rootKey, channelKeys: [channelKey], signers: signers))
    }

    @Test("a source that serves its own chain of roots is refused before any root is placed; the genuine source is mirrored after")
    func forgedRoots() async throws {
        let rootKey = Curve25519.Signing.PrivateKey()
        let channelKey = Curve25519.Signing.PrivateKey()
        let genuine = try Self.root(1, rootKey: rootKey, channelKey: channelKey, signers: [rootKey])
        let entry = Self.entry(sha256: Fixture.sha256(Data("x".utf8)))
        try await Self.withSources { root in
            try root.write(genuine, to: "app-root.json")
            // The forger's chain 1–4, each root signed by its own key (and so by the one before).
            let forgerRoot = Curve25519.Signing.PrivateKey()
            let forgerChannel = Curve25519.Signing.PrivateKey()
            for version in Int64(1)...4 {
                try root.write(
                    try Self.root(version, rootKey: forgerRoot, channelKey: forgerChannel, signers: [forgerRoot]),
                    to: "public/evil/roots/\(version).json"
                )
            }
            try Self.writeSource("evil", in: root, entries: [entry], channelRoot: 4) { document in
                document.signatures = [try Ed25519.sign(document.signedText, with: forgerChannel)]
            }
            // The genuine source: root 1, a document its channel key signed, the file.
            try root.write(genuine, to: "public/good/roots/1.json")
            try root.write(Data("x".utf8), to: "public/good/blobs/\(entry.sha256)")
            try Self.writeSource("good", in: root, entries: [entry], channelRoot: 1) { document in
                document.signatures = [try Ed25519.sign(document.signedText, with: channelKey)]
            }
        } _: { root, server, _ in
            let refused = try await InProcessCLI.run(
                ["mirror", "--from", "\(server)/evil", "--to", "out", "--trusted-root", "app-root.json"],
                token: nil,
                in: root
            )
            #expect(refused.status == 1)
            #expect(refused.errors.contains("do not descend from the trusted root"), "\(refused.errors)")
            #expect(try Fixture.files(below: root.appendingPathComponent("out")).filter { !$0.hasPrefix(".") } == [])

            let mirrored = try await InProcessCLI.run(
                ["mirror", "--from", "\(server)/good", "--to", "out", "--trusted-root", "app-root.json"],
                token: nil,
                in: root
            )
            #expect(mirrored.status == 0, "\(mirrored.errors)")
            #expect(try Data(contentsOf: root.appendingPathComponent("out/roots/1.json")) == genuine)
        }
    }

    @Test("a link planted in the mirror's .mirror folder, or for .mirror itself: refused, the file it points to untouched")
    func plantedLinks() async throws {
        let entry = Self.entry(sha256: Fixture.sha256(Data("x".utf8)))
        try await Self.withSources { root in
            try root.write(Data("x".utf8), to: "public/good/blobs/\(entry.sha256)")
            try Self.writeSource("good", in: root, entries: [entry])
        } _: { root, server, _ in
            let victim = try root.write(Data("precious\n".utf8), to: "victims/keep")
            for (destination, link) in [("one", ".mirror/\(entry.sha256)"), ("two", ".mirror")] {
                let planted = root.appendingPathComponent("\(destination)/\(link)")
                try FileManager.default.createDirectory(at: planted.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(
                    at: planted,
                    withDestinationURL: link == ".mirror" ? victim.deletingLastPathComponent() : victim
                )
                let result = try await InProcessCLI.run(
                    ["mirror", "--from", "\(server)/good", "--to", destination, "--without-signature-checks"],
                    token: nil,
                    in: root
                )
                #expect(result.status == 1, "\(destination): \(result.output)")
                #expect(result.errors.contains("(a link?)"), "\(destination): \(result.errors)")
                #expect(try Data(contentsOf: victim) == Data("precious\n".utf8))
                #expect(try FileManager.default.contentsOfDirectory(atPath: victim.deletingLastPathComponent().path) == ["keep"])
            }
        }
    }

    /// Issue 40, defect 6, for the mirror: a first source sent 1,000 wrong bytes under the
    /// origin's ETag and closed. The mirror resumes the partial file from the origin with
    /// `If-Range`, the whole fails its hash, and it is fetched again whole, once, through the
    /// download the client uses (`PartialFile.fetchChecked`).
    @Test("a partial file poisoned under the source's own ETag is fetched again whole, and the run succeeds")
    func poisonedPartial() async throws {
        let content = Fixture.pseudoRandom(count: 3_000_000, seed: 67)
        let sha256 = Fixture.sha256(content)
        var entry = Self.entry(sha256: sha256)
        entry.size = Int64(content.count)
        try await Self.withSources { root in
            try root.write(content, to: "public/good/blobs/\(sha256)")
            try Self.writeSource("good", in: root, entries: [entry])
        } _: { root, server, app in
            let head = try await app.connection { try await $0.request("HEAD", "/good/blobs/\(sha256)") }
            let tag = try #require(head.header("ETag"), "\(head.status)")
            #expect(tag.hasPrefix("\""), "a strong ETag to resume under: \(tag)")
            try root.write(Data(repeating: 0xEE, count: 1000), to: "dest/.mirror/\(sha256)")
            try root.write(Data(tag.utf8), to: "dest/.mirror/\(sha256).etag")

            let result = try await InProcessCLI.run(
                ["mirror", "--from", "\(server)/good", "--to", "dest", "--without-signature-checks"],
                token: nil,
                in: root
            )
            #expect(result.status == 0, "\(result.errors)")
            #expect(try Data(contentsOf: root.appendingPathComponent("dest/blobs/\(sha256)")) == content)
            #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("dest/.mirror").path).isEmpty)
        }
    }

    /// The mirror fails over as the client does (`Failover`): a first source whose file has the
    /// wrong bytes hands over to the next, which completes the folder.
    @Test("a source whose file fails its check hands over to the next --from; the folder is complete, and the failover said")
    func failover() async throws {
        let content = Data("the real bytes\n".utf8)
        var entry = Self.entry(sha256: Fixture.sha256(content))
        entry.size = Int64(content.count)
        try await Self.withSources { root in
            try root.write(Data("the wrong bytes".utf8), to: "public/bad/blobs/\(entry.sha256)")
            try root.write(content, to: "public/good/blobs/\(entry.sha256)")
            try Self.writeSource("bad", in: root, entries: [entry])
            try Self.writeSource("good", in: root, entries: [entry])
        } _: { root, server, _ in
            let result = try await InProcessCLI.run(
                ["mirror", "--from", "\(server)/bad", "--from", "\(server)/good", "--to", "dest", "--without-signature-checks"],
                token: nil,
                in: root
            )
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output.contains("\(server)/bad failed, the next source was tried"), "\(result.output)")
            #expect(try Data(contentsOf: root.appendingPathComponent("dest/blobs/\(entry.sha256)")) == content)

            // One source alone that fails is the run's failure, told in one line.
            let alone = try await InProcessCLI.run(
                ["mirror", "--from", "\(server)/bad", "--to", "alone", "--without-signature-checks"],
                token: nil,
                in: root
            )
            #expect(alone.status == 1)
            #expect(alone.errors.contains("does not have the SHA-256"), "\(alone.errors)")
        }
    }
}
