import DepotAPI
import DepotPublisher
import DepotTestSupport
import Foundation
import Testing

/// `depot publish` with its index (the stat cache): what it reads again, what it sends, and
/// what it does when the channel moved under it.
@Suite("depot publish's index")
struct PublishIndexCommandTests {
    static func index(in root: URL) throws -> (url: URL, index: PublishIndex) {
        let folder = root.appendingPathComponent(".cache/depot/publish")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".index") }
        let url = folder.appendingPathComponent(try #require(names.first))
        #expect(names.count == 1)
        return (url, PublishIndex.load(from: url))
    }

    @Test("a file whose status is unchanged and old enough is not read again; a changed or recent one is")
    func statusDecidesWhatIsRead() async throws {
        try await InProcessCLI.withServer { root, server in
            for name in ["a", "b", "c"] { try root.write(Data("\(name)\n".utf8), to: "site/\(name).txt") }
            let first = try await InProcessCLI.run(["publish", "site", "--server", server], in: root)
            #expect(first.status == 0, "\(first.errors)")
            // Written a moment ago: inside the racy window, so recorded without a status to trust.
            #expect(try Self.index(in: root).index.entries.values.allSatisfy { $0.source == nil })
            try await Task.sleep(for: .milliseconds(2_100))
            let second = try await InProcessCLI.run(["publish", "site", "--server", server], in: root)
            #expect(second.output.contains("nothing changed: stable stays on release 1"), "\(second.output)")
            var (url, index) = try Self.index(in: root)
            #expect(index.entries.values.allSatisfy { $0.source != nil })

            // The index's word is taken for a file whose status is the same: told that a.txt holds
            // other content (and, so that the whole list is sent, that the channel is on another
            // release), the publish lists that content, whose upload the server refuses.
            let forged = String(repeating: "0", count: 64)
            index.entries["a.txt"]?.sha256 = forged
            index.release?.id = forged
            try index.save(to: url)
            let trusting = try await InProcessCLI.run(["publish", "site", "--server", server], in: root)
            #expect(trusting.status != 0)
            #expect(trusting.errors.contains("(400)"), "\(trusting.errors)")

            // A new modification time makes the publish read the file again.
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -3_600)],
                ofItemAtPath: root.appendingPathComponent("site/a.txt").path
            )
            let reread = try await InProcessCLI.run(["publish", "site", "--server", server], in: root)
            #expect(reread.status == 0, "\(reread.errors)")
            #expect(reread.output.contains("nothing changed: stable stays on release 1"), "\(reread.output)")
            (url, index) = try Self.index(in: root)
            #expect(index.entries["a.txt"]?.sha256 != forged)
        }
    }

    @Test("only changed paths are sent; a channel moved by another publisher gets the whole list")
    func incrementalAndMoved() async throws {
        try await InProcessCLI.withServer { root, server in
            for name in ["a", "b", "c"] { try root.write(Data("\(name)\n".utf8), to: "site/\(name).txt") }
            try await InProcessCLI.publish(["site", "--replace"], to: server, in: root)
            try root.write(Data("b2\n".utf8), to: "site/b.txt")
            try FileManager.default.removeItem(at: root.appendingPathComponent("site/c.txt"))
            let changed = try await InProcessCLI.run(["publish", "site", "--server", server, "--replace", "--json"], in: root)
            let reply = try APIJSON.decode(CommitReply.self, from: Array(changed.output.utf8))
            #expect(reply.files.map(\.path) == ["b.txt"])
            #expect(reply.removed == ["c.txt"])
            #expect(reply.unchanged == 0, "a.txt was not listed at all")

            // Another publisher moves the channel: the index's release is no longer live.
            try root.write(Data("other\n".utf8), to: "other.txt")
            try await InProcessCLI.publish(["other.txt"], to: server, in: root)
            try root.write(Data("a2\n".utf8), to: "site/a.txt")
            let moved = try await InProcessCLI.run(["publish", "site", "--server", server, "--replace"], in: root)
            #expect(moved.status == 0, "\(moved.errors)")
            #expect(moved.output.contains("removed other.txt"), "\(moved.output)")
            let listing = try await InProcessCLI.run(["ls", "--server", server], token: nil, in: root)
            #expect(listing.output.contains("a.txt\tv2"))
            #expect(listing.output.contains("b.txt\tv2"))
            #expect(!listing.output.contains("other.txt"))
            #expect(!listing.output.contains("c.txt"))
        }
    }
}
