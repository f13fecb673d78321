import Crypto
import DepotHTTP
import DepotManifest
import DepotServer
import DepotTestSupport
import Foundation
import Testing

@testable import DepotClient

/// Issue 57, "what is applied is verified when it is applied": a release staged by `download()`
/// is checked again by `apply()` (its files after a power cut, its channel document against the
/// trust configured now); a channel's serial floor outlives a switch to another channel; a
/// dropped download's files go; a folder refuses a sync in the other layout.
@Suite("Staged downloads, verified when applied")
struct StagedApplyTests {
    static let big = Fixture.pseudoRandom(count: 300_000, seed: 57)
    static let small = Data("two, longer than one\n".utf8)

    /// The staged file of `content` in `folder`.
    static func staged(_ folder: URL, _ content: Data) -> URL {
        let sha256 = Fixture.sha256(content)
        return folder.appendingPathComponent(".depot/staging/\(sha256.prefix(2))/\(sha256)")
    }

    /// The bytes of every file under `.depot/staging` of `folder`.
    static func stagingBytes(_ folder: URL) -> Int {
        let root = folder.appendingPathComponent(StagingFolder.path)
        let names = (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String]) ?? []
        return names.reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(name).path)
            return total + ((attributes?[.type] as? FileAttributeType) == .typeRegular ? (attributes?[.size] as? Int ?? 0) : 0)
        }
    }

    @Test(
        "defect 17: a power cut between download and apply leaves a staged file empty and another cut short: apply refuses, changes nothing, and the next sync applies release 2 whole"
    )
    func powerCut() async throws {
        try await SyncStepsTests.withReleaseOne { server, folder, client in
            try await server.publish([("a.txt", Self.small), ("big.bin", Self.big)])
            let downloaded = try await client.download()
            #expect(downloaded.staged?.number == 3)
            // What a power cut leaves of writes that were not durable: one file empty, one cut short.
            try Data().write(to: Self.staged(folder, Self.small))
            try Self.big.prefix(100_000).write(to: Self.staged(folder, Self.big))

            let refused = #expect(throws: SyncError.self) { try client.apply() }
            #expect(refused?.code == .notStaged && refused?.message.contains("damaged in staging") == true, "\(String(describing: refused))")
            #expect(client.currentRelease?.number == 1 && SyncTests.contents(folder, "a.txt") == Data("one\n".utf8))
            #expect(SyncTests.contents(folder, "big.bin") == nil)
            #expect(client.folder.read(.staged) == nil, "the bad staging is discarded")

            let synced = try await client.sync()
            #expect(synced.release?.number == 3 && synced.updatedCount == 2, "\(synced.files.map(\.path))")
            #expect(SyncTests.contents(folder, "a.txt") == Self.small && SyncTests.contents(folder, "big.bin") == Self.big)
        }
    }

    /// Static mirrors, each a folder of the public folder (`/m1/`, `/m2/`) serving its releases
    /// with their blobs: a client moved from one to the next sees the channel move, with no
    /// change to a folder the server serves.
    static func withMirrors(_ mirrors: [String: [(FakeRelease, [Data])]], _ body: @Sendable (InProcessServer, URL) async throws -> Void) async throws
    {
        let prepare: (URL) throws -> Void = { root in
            for (name, releases) in mirrors {
                for (release, blobs) in releases { try release.write(to: root.appendingPathComponent(name), blobs: blobs) }
            }
        }
        try await InProcessServer.with(prepare: prepare) { server in
            try await withTemporaryDirectory { root in try await body(server, root.appendingPathComponent("sync")) }
        }
    }

    /// A client of the mirror `mirror` following `channel`, trusting `keys`; `replacing`: told it
    /// may replace the trust the folder was synced with.
    static func client(
        _ server: some TestServer,
        _ mirror: String,
        _ folder: URL,
        channel: String = "stable",
        trusting keys: [Curve25519.Signing.PrivateKey],
        replacing: Bool = false
    ) -> DepotClient {
        var configuration = DepotClient.Configuration(
            channel: channel,
            trustedKeys: keys.map { $0.publicKey.rawRepresentation.base64EncodedString() }
        )
        configuration.replacesTrust = replacing
        return DepotClient(server: URL(string: server.url("/\(mirror)/"))!, directory: folder, configuration: configuration)
    }

    @Test(
        "defect 19: a release downloaded under key K1, applied trusting K2 only (told to replace the trust), or after its document expired, is refused; nothing changes"
    )
    func trustChange() async throws {
        let (k1, k2) = (Curve25519.Signing.PrivateKey(), Curve25519.Signing.PrivateKey())
        let (one, two) = (Data("one\n".utf8), Data("two\n".utf8))
        var second = FakeRelease(entries: [FakeRelease.entry("a.txt", two)], number: 2, serial: 2, key: k1)
        let expires = Int64(Date().timeIntervalSince1970) + 3600
        second.expires = HTTPDate(secondsSince1970: expires).imfFixdate
        let first = FakeRelease(entries: [FakeRelease.entry("a.txt", one)], key: k1)
        let mirrors: [String: [(FakeRelease, [Data])]] = ["m1": [(first, [one])], "m2": [(second, [two])]]
        try await Self.withMirrors(mirrors) { server, folder in
            _ = try await Self.client(server, "m1", folder, trusting: [k1]).sync()
            #expect(try await Self.client(server, "m2", folder, trusting: [k1]).download().staged?.number == 2)

            let untrusted = #expect(throws: SyncError.self) { try Self.client(server, "m2", folder, trusting: [k2], replacing: true).apply() }
            #expect(
                untrusted?.code == .untrusted && untrusted?.message.contains("not signed by a trusted key") == true,
                "\(String(describing: untrusted))"
            )
            #expect(SyncTests.contents(folder, "a.txt") == one)

            #expect(try await Self.client(server, "m2", folder, trusting: [k1], replacing: true).download().staged?.number == 2)
            var late = Self.client(server, "m2", folder, trusting: [k1])
            late.now = { expires + 1 }
            let expired = #expect(throws: SyncError.self) { try late.apply() }
            #expect(expired?.code == .untrusted && expired?.message.contains("expired") == true, "\(String(describing: expired))")
            #expect(SyncTests.contents(folder, "a.txt") == one && late.currentRelease?.number == 1)

            #expect(try await Self.client(server, "m2", folder, trusting: [k1]).download().staged?.number == 2)
            #expect(try Self.client(server, "m2", folder, trusting: [k1]).apply().number == 2)
            #expect(SyncTests.contents(folder, "a.txt") == two)
        }
    }

    @Test("defect 24: stable, then beta, then stable again: a replayed older stable document is refused, as by a client that stayed on stable")
    func floorPerChannel() async throws {
        let key = Curve25519.Signing.PrivateKey()
        let (one, two, third) = (Data("one\n".utf8), Data("two\n".utf8), Data("beta\n".utf8))
        let mirrors: [String: [(FakeRelease, [Data])]] = [
            "m1": [
                (FakeRelease(entries: [FakeRelease.entry("a.txt", two)], number: 2, serial: 2, key: key), [two]),
                (FakeRelease(entries: [FakeRelease.entry("a.txt", third)], channel: "beta", number: 3, serial: 1, key: key), [third]),
            ],
            // An edge cache that replays stable's serial 1, unexpired and validly signed.
            "m2": [(FakeRelease(entries: [FakeRelease.entry("a.txt", one)], key: key), [one])],
        ]
        try await Self.withMirrors(mirrors) { server, folder in
            let stable = try await Self.client(server, "m1", folder, trusting: [key]).sync()
            let beta = try await Self.client(server, "m1", folder, channel: "beta", trusting: [key]).sync()
            #expect(stable.release?.number == 2 && beta.release?.number == 3)
            let refused = await #expect(throws: SyncError.self) { try await Self.client(server, "m2", folder, trusting: [key]).sync() }
            #expect(
                refused?.code == .untrusted && refused?.message.contains("lower than the 2 accepted before") == true,
                "\(String(describing: refused))"
            )
            #expect(SyncTests.contents(folder, "a.txt") == Data("beta\n".utf8))
        }
    }

    @Test("defect 25: download-only on a channel that keeps moving: each dropped download's files are removed, .depot/staging stays at one download")
    func droppedDownloads() async throws {
        try await SyncStepsTests.withReleaseOne { server, folder, client in
            var sizes: [Int] = []
            for round in 0..<5 {
                try await server.publish([("r.bin", Fixture.pseudoRandom(count: 100_000, seed: UInt64(round + 100)))])
                #expect(try await client.download().staged != nil)
                sizes.append(Self.stagingBytes(folder))
            }
            // Each download stages r.bin as the channel names it now: 100 KB. A dropped download
            // whose files were forgotten leaves each earlier r.bin behind.
            #expect(sizes.allSatisfy { $0 == 100_000 }, "\(sizes)")
            try client.apply()
            #expect(Self.stagingBytes(folder) == 0)
        }
    }
}

/// Issue 57, defect 18: a folder refuses a sync in the other layout than it holds its release
/// in, both ways, before anything is changed.
@Suite("Layouts refuse each other")
struct LayoutRefusalTests {
    @Test("defect 18: a default-layout sync, check, download or apply on a release-folders folder is refused with one line; nothing changes")
    func inPlaceOnReleaseFolders() async throws {
        try await InProcessServer.withPublishing { server in
            try await server.publish([("a.txt", Data("one\n".utf8))])
            try await withTemporaryDirectory { folder in
                _ = try await ReleaseFoldersTests.client(server, folder).sync()
                try await server.publish([("a.txt", Data("two\n".utf8)), ("b.txt", Data("new\n".utf8))])
                let inPlace = SyncTests.client(server, folder)
                for step in ["sync", "check", "download"] {
                    let error = await #expect(throws: SyncError.self) {
                        switch step {
                        case "sync": _ = try await inPlace.sync()
                        case "check": _ = try await inPlace.check()
                        default: _ = try await inPlace.download()
                        }
                    }
                    #expect(error?.message.contains("in release folders, not in place") == true, "\(step): \(String(describing: error))")
                }
                #expect(throws: SyncError.self) { try inPlace.apply() }
                #expect(throws: SyncError.self) { try inPlace.openCurrentRelease() }
                #expect(SyncTests.contents(folder, "a.txt") == nil && SyncTests.contents(folder, "b.txt") == nil, "nothing put in the root")
                #expect(inPlace.currentRelease?.number == 1)
                // The folder's own layout goes on.
                #expect(try await ReleaseFoldersTests.client(server, folder).sync().release?.number == 3)
                #expect(SyncTests.contents(folder, "current/a.txt") == Data("two\n".utf8))
            }
        }
    }
}
