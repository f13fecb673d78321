import Crypto
import DepotConcurrency
import DepotDelta
import DepotFixtures
import DepotManifest
import DepotSigning
import Foundation
import Testing

@testable import DepotClient

/// The one checked path from a source to a channel's documents (``TreeReader``), as
/// `DepotClient` and `depot mirror` each drive it, against a source held in memory that plays
/// every attack a hostile origin, mirror or cache can: forged and oversized roots, documents
/// that are not what their name says, names and sizes that climb out of a folder or overflow,
/// patches that make something else. One table, run as the client and as the mirror; no socket.
@Suite("A hostile source against the one checked path")
struct HostileTreeSourceTests {
    /// A source answering from memory; it bounds bodies as every transport does and remembers
    /// what it was asked for, and with what bound.
    final class MemorySource: TreeSource {
        let answers: [String: TreeAnswer]
        private let asked = Locked<[(url: String, maximumBytes: Int)]>([])
        var name: String { "memory" }
        var requests: [(url: String, maximumBytes: Int)] { asked.withLock { $0 } }

        init(_ answers: [String: TreeAnswer]) { self.answers = answers }

        func fetch(_ object: TreeObject, maximumBytes: Int, ifNoneMatch: String?) async throws -> TreeAnswer {
            asked.withLock { $0.append((object.url, maximumBytes)) }
            let answer = answers[object.url] ?? .missing
            if case .found(let bytes, _) = answer, bytes.count > maximumBytes {
                throw SyncError(.corrupt, "\(object.url) is larger than the limit of \(maximumBytes) bytes")
            }
            return answer
        }
    }

    static let rootKey = Curve25519.Signing.PrivateKey()
    static let channelKey = Curve25519.Signing.PrivateKey()
    static let forger = Curve25519.Signing.PrivateKey()
    /// 2026-11-23 12:00:00 UTC.
    static let now: Int64 = 1_795_435_200
    static let expires = "Mon, 30 Nov 2026 12:00:00 GMT"
    static let maximumDocumentBytes = 256 * 1024

    static func json(_ value: some Encodable) -> [UInt8] { Array(try! JSONEncoder().encode(value)) }
    static func sha256(_ bytes: [UInt8]) -> String { SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }

    /// A root naming `rootKey` and `channelKey`, signed by `signers`.
    static func root(
        _ version: Int64,
        rootKey: Curve25519.Signing.PrivateKey = rootKey,
        channelKey: Curve25519.Signing.PrivateKey = channelKey,
        signers: [Curve25519.Signing.PrivateKey]? = nil
    ) -> RootDocument {
        Fixture.root(version: version, expires: expires, rootKey: rootKey, channelKeys: [channelKey], signers: signers)
    }

    /// An origin's tree, honest until a row changes it: roots 1 and 2, a channel document under
    /// root 2, a release of one page, the page's one file, and the page's previous version
    /// (the base a client holds) with a patch from it.
    struct Tree: Sendable {
        var roots: [RootDocument] = [root(1), root(2)]
        var entry = Fixture.entry("img/a.png", size: 5, sha256: sha256(Array("hello".utf8)), version: 2, contentType: "image/png")
        var pageBits = 0
        var channelRoot: Int64? = 2
        var channelName = "stable"
        var signer = channelKey
        var rollout: ChannelDocument.Rollout?
        /// Changes the channel document after it is signed.
        var tamper: @Sendable (inout ChannelDocument) -> Void = { _ in }
        /// Changes what is served, after the documents are made.
        var serve: @Sendable (inout [String: TreeAnswer], _ names: Names) -> Void = { _, _ in }

        /// The names of the documents made.
        struct Names {
            let release: String
            let page: String
            let basePage: String
        }

        /// Made once: an encoder need not order keys the same way twice.
        static let basePage: [UInt8] = {
            var entry = Tree().entry
            entry.version = 1
            entry.sha256 = sha256(Array("hell".utf8))
            entry.size = 4
            return json(ReleasePage(entries: [entry]))
        }()

        func answers() -> [String: TreeAnswer] {
            let page = json(ReleasePage(entries: [entry]))
            let pageSHA = sha256(page)
            let release = json(ReleaseDocument(number: 2, parent: nil, createdAt: "", files: 1, bytes: 5, pageBits: pageBits, pages: [pageSHA]))
            let releaseSHA = sha256(release)
            var document = Fixture.channelDocument(
                channel: channelName,
                release: releaseSHA,
                number: 2,
                serial: 7,
                expires: expires,
                root: channelRoot,
                rollout: rollout,
                signedBy: [signer]
            )
            tamper(&document)
            let base = Tree.basePage
            var answers: [String: TreeAnswer] = [
                "/channels/stable": .found(json(document), entityTag: "\"c7\""),
                try! TreeObject.release(releaseSHA).url: .found(release, entityTag: nil),
                try! TreeObject.page(pageSHA).url: .found(page, entityTag: nil),
                try! TreeObject.delta(from: sha256(base), to: pageSHA).url: .found(try! GzipVCDIFF.make(from: base, to: page), entityTag: nil),
            ]
            for root in roots { answers[try! TreeObject.root(root.version).url] = .found(json(root), entityTag: nil) }
            serve(&answers, Names(release: releaseSHA, page: pageSHA, basePage: sha256(base)))
            return answers
        }
    }

    /// Who walks the tree, and under what trust.
    enum Walker {
        /// `DepotClient`: shipped with root 1, holding the page's base.
        case client
        /// `depot mirror --trusted-root`: shipped root 1; walks from root 1.
        case mirror
        /// `depot mirror --trusted-key`: the channel key, no root.
        case mirrorTrustingKey
    }

    /// What a walk came to: the documents that passed, or the error that stopped it.
    enum Outcome: Equatable, Sendable {
        case accepted
        case refused(SyncError.Code, String)
    }

    /// Walks `tree` as `walker` does: the channel document checked (roots walked), then the
    /// release and its pages, as ``DepotClient`` and `depot mirror` call the reader.
    static func walk(_ tree: Tree, as walker: Walker) async -> (Outcome, MemorySource, roots: Int) {
        let source = MemorySource(tree.answers())
        let reader = TreeReader(source: source, maximumDocumentBytes: maximumDocumentBytes)
        let trust: ChannelCheck.Trust = walker == .mirrorTrustingKey ? .keys([channelKey.publicKey]) : .root(root(1))
        var roots = 0
        do {
            guard
                let checked = try await reader.checkedChannel(
                    "stable",
                    trust: trust,
                    fromFirstRoot: walker != .client,
                    now: now,
                    lastAccepted: nil
                )
            else { return (.refused(.server, "no document"), source, 0) }
            roots = checked.roots.count
            guard let (release, _) = try await reader.release(checked.document.release) else {
                return (.refused(.server, "no release"), source, roots)
            }
            for page in release.pages {
                let base = Tree.basePage
                _ = try await reader.page(page, base: walker == .client ? (sha256(base), base) : nil)
            }
            return (.accepted, source, roots)
        } catch let error as SyncError {
            return (.refused(error.code, error.message), source, roots)
        } catch {
            return (.refused(.io, "\(error)"), source, roots)
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let tree: Tree
        let client: Outcome
        let mirror: Outcome
        var testDescription: String { name }
    }

    static func row(_ name: String, _ both: Outcome, mirror: Outcome? = nil, _ change: (inout Tree) -> Void) -> Row {
        var tree = Tree()
        change(&tree)
        return Row(name: name, tree: tree, client: both, mirror: mirror ?? both)
    }

    static let rows: [Row] = [
        row("an honest source", .accepted) { _ in },
        row("a channel document that is not JSON", .refused(.corrupt, "is not valid")) { tree in
            tree.serve = { answers, _ in answers["/channels/stable"] = .found(Array("<html>".utf8), entityTag: nil) }
        },
        row("a channel document past 64 KiB", .refused(.corrupt, "larger than the limit of 65536 bytes")) { tree in
            tree.serve = { answers, _ in answers["/channels/stable"] = .found([UInt8](repeating: 0x20, count: 65537), entityTag: nil) }
        },
        row("no channel document", .refused(.server, "answered 404")) { tree in
            tree.serve = { answers, _ in answers["/channels/stable"] = .missing }
        },
        row("a 503", .refused(.server, "answered 503")) { tree in
            tree.serve = { answers, _ in answers["/channels/stable"] = .status(503) }
        },
        row("a 304 to a request without If-None-Match", .refused(.server, "304")) { tree in
            tree.serve = { answers, _ in answers["/channels/stable"] = .notModified }
        },
        row("another channel's document", .refused(.corrupt, "is for beta")) { $0.channelName = "beta" },
        row("a document signed by a key the root does not name", .refused(.untrusted, "signed by 0 of root 2's channel keys")) {
            $0.signer = forger
        },
        row("a signed field moved into the rollout salt", .refused(.untrusted, "signed by 0 of root 2's channel keys")) { tree in
            let next = String(repeating: "b", count: 64)
            tree.rollout = .init(release: next, number: 3, percent: 50, salt: "5a17", minimumClientVersion: "3.0")
            tree.tamper = { document in
                document.rollout?.salt = "5a17\nrollout-minimum-client-version 3.0"
                document.rollout?.minimumClientVersion = nil
            }
        },
        row(
            "the source's own chain of roots 1–4",
            .refused(.untrusted, "signed by 0 of root 1's root keys"),
            mirror: .refused(.untrusted, "do not descend from the trusted root")
        ) { tree in
            tree.roots = (1...4).map { root($0, rootKey: forger, channelKey: forger, signers: [forger]) }
            tree.channelRoot = 4
            tree.signer = forger
        },
        row("root 2 padded past 1 MiB", .refused(.corrupt, "larger than the limit of 1048576 bytes")) { tree in
            tree.serve = { answers, _ in
                answers["/roots/2.json"] = .found(json(root(2)) + [UInt8](repeating: 0x20, count: 1 << 20), entityTag: nil)
            }
        },
        row("root 3 served as root 2", .refused(.untrusted, "says it is version 3")) { tree in
            tree.serve = { answers, _ in answers["/roots/2.json"] = .found(json(root(3)), entityTag: nil) }
        },
        row("root 2 missing", .refused(.untrusted, "has no /roots/2.json")) { tree in
            tree.serve = { answers, _ in answers["/roots/2.json"] = .missing }
        },
        row("root 2 answers 500", .refused(.server, "answered 500")) { tree in
            tree.serve = { answers, _ in answers["/roots/2.json"] = .status(500) }
        },
        row("a release document with another's bytes", .refused(.corrupt, "does not have the SHA-256 its name says")) { tree in
            tree.serve = { answers, names in answers[try! TreeObject.release(names.release).url] = .found(Array("{}".utf8), entityTag: nil) }
        },
        row("a release document past the document limit", .refused(.corrupt, "larger than the limit of \(maximumDocumentBytes) bytes")) { tree in
            tree.serve = { answers, names in
                answers[try! TreeObject.release(names.release).url] = .found(
                    [UInt8](repeating: 0x20, count: maximumDocumentBytes + 1),
                    entityTag: nil
                )
            }
        },
        row("a release listing one page for 3 bits of paging", .refused(.corrupt, "not a release document")) { $0.pageBits = 3 },
        row("a page whose file's gzip is named ../../victim", .refused(.corrupt, "gzip sha256 of img/a.png is not 64 lower-case hex digits")) {
            tree in
            tree.entry.gzip = .init(size: 10, sha256: "../../victim")
        },
        row("a page whose file has a negative size", .refused(.corrupt, "has a negative size")) { $0.entry.size = -1 },
        row("a page whose file's SHA-256 is a path", .refused(.corrupt, "not 64 lower-case hex digits")) { $0.entry.sha256 = "/etc/passwd" },
        row("a page missing: the client makes it from its patch", .accepted, mirror: .refused(.server, "answered 404")) { tree in
            tree.serve = { answers, names in answers[try! TreeObject.page(names.page).url] = .missing }
        },
        row("a patch that makes other bytes: the page is fetched whole", .accepted) { tree in
            tree.serve = { answers, names in
                let other = try! GzipVCDIFF.make(from: Tree.basePage, to: Array("{\"entries\":[]}".utf8))
                answers[try! TreeObject.delta(from: names.basePage, to: names.page).url] = .found(other, entityTag: nil)
            }
        },
        row("a patch that is not one: the page is fetched whole", .accepted) { tree in
            tree.serve = { answers, names in
                answers[try! TreeObject.delta(from: names.basePage, to: names.page).url] = .found([0x1f, 0x8b, 0, 1, 2], entityTag: nil)
            }
        },
        row("a patch that inflates past the document limit: the page is fetched whole", .accepted) { tree in
            tree.serve = { answers, names in
                let bomb = try! GzipVCDIFF.make(from: Tree.basePage, to: [UInt8](repeating: 0x7b, count: maximumDocumentBytes * 4))
                answers[try! TreeObject.delta(from: names.basePage, to: names.page).url] = .found(bomb, entityTag: nil)
            }
        },
    ]

    @Test("each attack is refused as the client and as the mirror, by the same check", arguments: rows)
    func attack(_ row: Row) async {
        for walker in [Walker.client, .mirror] {
            let (outcome, source, roots) = await Self.walk(row.tree, as: walker)
            let expected = walker == .client ? row.client : row.mirror
            switch (outcome, expected) {
            case (.accepted, .accepted):
                // Roots handed back to keep: only the genuine chain's, and only once it passed.
                #expect(roots == (walker == .client ? 1 : 2), "\(row.name), \(walker)")
            case (.refused(let code, let message), .refused(let expectedCode, let fragment)):
                #expect(code == expectedCode && message.contains(fragment), "\(row.name), \(walker): \(code) \(message)")
            default:
                Issue.record("\(row.name), \(walker): \(outcome), expected \(expected)")
            }
            // Every body is bounded by the reader's limits, whatever the source claims.
            for request in source.requests {
                let bound =
                    request.url.hasPrefix("/channels/")
                    ? 64 * 1024 : request.url.hasPrefix("/roots/") ? RootWalk.maximumRootBytes : Self.maximumDocumentBytes
                #expect(request.maximumBytes == bound, "\(row.name), \(walker): \(request.url) asked with \(request.maximumBytes)")
            }
        }
    }

    @Test("a patch that makes exactly the page is used: the page itself is not fetched")
    func patchUsed() async throws {
        let (outcome, source, _) = await Self.walk(Tree(), as: .client)
        #expect(outcome == .accepted)
        #expect(source.requests.contains { $0.url.hasPrefix("/deltas/") })
        #expect(!source.requests.contains { $0.url.hasPrefix("/pages/") }, "\(source.requests.map(\.url))")
        let (_, fetchedWhole, _) = await Self.walk(Tree(), as: .mirror)
        #expect(fetchedWhole.requests.contains { $0.url.hasPrefix("/pages/") })
    }

    @Test("a document naming root 1,000,000: a mirror trusting a key follows no root; one trusting root 1 walks only the genuine chain")
    func unboundedRoots() async {
        var tree = Tree()
        tree.channelRoot = 1_000_000
        let (keyOutcome, keySource, _) = await Self.walk(tree, as: .mirrorTrustingKey)
        #expect(keyOutcome == .refused(.untrusted, "the channel document names root 1000000; without a trusted root at most 1000 are followed"))
        #expect(!keySource.requests.contains { $0.url.hasPrefix("/roots/") && $0.url != "/roots/1.json" })
        let (rootOutcome, rootSource, _) = await Self.walk(tree, as: .mirror)
        if case .refused(.untrusted, let message) = rootOutcome {
            #expect(message.contains("has no /roots/3.json"), "\(message)")
        } else {
            Issue.record("\(rootOutcome)")
        }
        #expect(rootSource.requests.filter { $0.url.hasPrefix("/roots/") }.count == 3)
    }
}
