import DepotConcurrency
import DepotFixtures
import Dispatch
import Foundation
import Testing

@testable import DepotClient

/// Issue 57, cause 8: the client's files of its sync folder (``FolderFile`` over
/// `ContainedFolder`) attacked by a local process that plants a FIFO where Depot keeps a partial
/// file or its tag. Opening a FIFO for reading (or writing) waits for the other end forever: a
/// planted one must be refused, never waited on.
@Suite("Staging attacks: FIFOs and huge files planted in the sync folder")
struct StagingAttackTests {
    /// Runs `body` on a thread of its own and waits for it at most `bound` (not a deadline the
    /// code must meet: a bound on the wait, so that a hang fails instead of hanging the run).
    /// When it is still waiting, the FIFO `fifo` is opened at its other end, which ends the wait,
    /// and the attempt is reported as hung.
    static func finishes(_ fifo: URL, bound: DispatchTimeInterval = .seconds(20), _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            body()
            done.signal()
        }
        if done.wait(timeout: .now() + bound) == .success { return true }
        // Unblock the open: a reader for a writer waiting, a writer for a reader waiting.
        for flags in [O_WRONLY | O_NONBLOCK, O_RDONLY | O_NONBLOCK] {
            let other = open(fifo.path, flags)
            if other >= 0 { close(other) }
        }
        _ = done.wait(timeout: .now() + bound)
        return false
    }

    @Test("a FIFO planted in place of a partial file's kept tag is not waited on: the assumed tag is asked with")
    func fifoTag() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("f.partial")
            try Data(repeating: 7, count: 40).write(to: url)
            let tag = url.appendingPathExtension("etag")
            #expect(mkfifo(tag.path, 0o600) == 0)
            let range = Locked<String?>(nil)
            let finished = Self.finishes(tag) {
                guard let partial = try? PartialFile(at: url, source: "/blobs/f", expectedLength: 100) else { return }
                let headers = partial.requestHeaders(assumedTag: "\"sha\"")
                range.withLock { $0 = headers.first { $0.name == "If-Range" }?.value }
            }
            #expect(finished, "reading the kept tag waited on the FIFO")
            #expect(range.withLock { $0 } == "\"sha\"")
        }
    }

    @Test("a FIFO planted in place of a partial file is refused, not opened and written into")
    func fifoPartial() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("f.partial")
            #expect(mkfifo(url.path, 0o600) == 0)
            let outcome = Locked<String>("not run")
            let finished = Self.finishes(url) {
                do {
                    let partial = try PartialFile(at: url, source: "/blobs/f", expectedLength: 1 << 20)
                    try partial.begin(status: 200, contentRange: nil, entityTag: "\"t\"")
                    for _ in 0..<32 { try partial.append(Data(repeating: 1, count: 1 << 15)) }
                    outcome.withLock { $0 = "written into the FIFO" }
                } catch {
                    outcome.withLock { $0 = "refused" }
                }
            }
            #expect(finished, "the FIFO was waited on")
            #expect(outcome.withLock { $0 } == "refused")
        }
    }

    @Test("a FIFO planted in place of a staged file is refused when it is read, not waited on")
    func fifoStaged() async throws {
        try await withTemporaryDirectory { folder in
            let fifo = folder.appendingPathComponent("staged")
            #expect(mkfifo(fifo.path, 0o600) == 0)
            let file = try FolderFile.at(fifo, creating: false)
            let outcome = Locked<String>("not run")
            let finished = Self.finishes(fifo) {
                let read = (try? file.read()).map { _ in "read" } ?? "refused"
                let opened = (try? file.reading()).map { _ in "opened" } ?? "refused"
                let written = (try? file.write(Data([1]))).map { _ in "written" } ?? "refused"
                outcome.withLock { $0 = [read, opened, written].joined(separator: " ") }
            }
            #expect(finished, "the FIFO was waited on")
            #expect(outcome.withLock { $0 } == "refused refused refused")
            #expect(file.size == nil)
        }
    }

    @Test("a huge sparse file planted as a partial file's kept tag is not read into memory nor sent as If-Range")
    func hugeTag() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("f.partial")
            try Data(repeating: 7, count: 40).write(to: url)
            let tag = url.appendingPathExtension("etag")
            #expect(FileManager.default.createFile(atPath: tag.path, contents: Data("\"t".utf8)))
            #expect(truncate(tag.path, 64 << 20) == 0)
            let partial = try PartialFile(at: url, source: "/blobs/f", expectedLength: 100)
            let ifRange = partial.requestHeaders(assumedTag: "\"sha\"").first { $0.name == "If-Range" }?.value
            #expect(ifRange == "\"sha\"", "If-Range of \(ifRange?.utf8.count ?? 0) bytes")
        }
    }
}
