import DepotFiles
import Foundation

/// A download of an immutable file under way in a partial file, and resumable: Depot's one
/// resumable download, which `DepotClient` drives over URLSession (``BlobDownload``) and
/// `depot mirror` over AsyncHTTPClient. Only the transport differs; what is asked for, what
/// answer is used and how, and what is written are decided here.
///
/// With `N` bytes already in the file it asks for `Range: bytes=N-` and `If-Range:` the strong
/// ETag the server sent with the file's first bytes (kept beside it, in `{file}.etag`), or the
/// tag the caller assumes when none was kept (Depot's: the content's SHA-256); RFC 9110
/// §13.1.5. A 206 that starts at `N` and names the expected length appends; a 200 restarts the
/// file (its strong ETag kept for a later resume; a weak one cannot be used by `If-Range`);
/// any other answer is refused. No more than the expected length is ever written, and the file
/// and its tag are touched only through their folder's descriptor (``FolderFile``): a link in
/// place of either, or on the way, is refused, never read or written through.
///
/// A download that resumed and then fails its check may owe that to its start (another
/// server's wrong bytes under the right ETag): ``fetchChecked(_:check:)`` fetches it again
/// whole, once.
public final class PartialFile {
    /// Where the bytes go.
    let file: FolderFile
    /// Where the bytes go, for messages and checks.
    public var url: URL { URL(fileURLWithPath: file.shown, isDirectory: false) }
    /// The length the release promises.
    public let expectedLength: Int64
    /// What the download is of, for messages (its URL).
    let source: String
    private let handle: FileHandle
    /// The bytes the file held when opened.
    private let held: Int64
    /// Where the answer's body begins in the file, once ``begin(status:contentRange:entityTag:)``
    /// took it.
    private var offset: Int64 = 0
    /// Body bytes written so far.
    public private(set) var received: Int64 = 0
    /// Whether the answer continues what the file held.
    public private(set) var resumed = false

    /// Opens (or makes) the partial file at `url` of a download of `source` promised to be
    /// `expectedLength` bytes long: a name in the folder the caller gave (`depot mirror`'s).
    public convenience init(at url: URL, source: String, expectedLength: Int64) throws {
        try self.init(FolderFile.at(url, creating: true), source: source, expectedLength: expectedLength)
    }

    /// Opens (or makes) the partial file `file` of the sync folder.
    init(_ file: FolderFile, source: String, expectedLength: Int64) throws {
        self.file = file
        self.source = source
        self.expectedLength = expectedLength
        handle = try file.writing(truncating: false)
        held = Int64(try handle.seekToEnd())
    }

    deinit { try? handle.close() }

    /// Beside the partial file: the strong ETag the server sent with its first bytes.
    var tag: FolderFile { file.appending(".etag") }

    /// Beside the partial file: the strong ETag the server sent with its first bytes.
    public var tagFile: URL { URL(fileURLWithPath: tag.shown, isDirectory: false) }

    /// The longest kept tag read back: a longer file there is not a tag Depot wrote.
    static let maximumTagBytes: Int64 = 256

    /// Whether the file holds the promised length already: nothing is to be asked for.
    public var isComplete: Bool { held == expectedLength }

    /// Where the request starts: what the file holds, unless that is more than promised.
    private var resumeFrom: Int64 { held < expectedLength ? held : 0 }

    /// The headers of the request for the rest: none for the whole file, else `Range` and
    /// `If-Range` (the tag kept, else `assumedTag`; without either, the whole file).
    public func requestHeaders(assumedTag: String?) -> [(name: String, value: String)] {
        guard resumeFrom > 0 else { return [] }
        // A link in place of the tag is not read, nor a file longer than a tag: the tag assumed
        // is asked with instead.
        let kept = (tag.size ?? .max) <= Self.maximumTagBytes ? (try? tag.read())?.map { String(decoding: $0, as: UTF8.self) } : nil
        guard let tag = kept ?? assumedTag else { return [] }
        return [("Range", "bytes=\(resumeFrom)-"), ("If-Range", tag)]
    }

    /// Takes the answer's status and headers, before any of its body: a 206 continues the file,
    /// a 200 restarts it; anything else, or a 206 from the wrong place, is refused
    /// (``SyncError`` `.server`).
    public func begin(status: Int, contentRange: String?, entityTag: String?) throws {
        switch status {
        case 206 where resumeFrom > 0:
            let range = contentRange ?? ""
            guard range.hasPrefix("bytes \(resumeFrom)-"), range.hasSuffix("/\(expectedLength)") else {
                throw SyncError(.server, "\(source) resumed at the wrong place (\(range))")
            }
            try handle.seek(toOffset: UInt64(resumeFrom))
            offset = resumeFrom
            resumed = true
        case 200:
            try handle.truncate(atOffset: 0)
            offset = 0
            if let entityTag, entityTag.hasPrefix("\"") {
                try tag.write(Data(entityTag.utf8))
            } else {
                tag.remove()
            }
        default:
            throw SyncError(.server, "\(source) answered \(status)")
        }
    }

    /// Writes a piece of the body. Never more than promised: a server that sends more is
    /// stopped here, before the surplus reaches the disk (``SyncError`` `.corrupt`).
    public func append(_ bytes: some DataProtocol) throws {
        guard offset + received + Int64(bytes.count) <= expectedLength else {
            throw SyncError(.corrupt, "\(source) is longer than the \(expectedLength) bytes the release says")
        }
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw SyncError(.io, "cannot write \(file.shown): \(error)")
        }
        received += Int64(bytes.count)
    }

    /// Removes the partial file at `url`, and the ETag kept beside it.
    public static func discard(_ url: URL) {
        guard let file = try? FolderFile.at(url, creating: false) else { return }
        discard(file)
    }

    /// Removes the partial file `file`, and the ETag kept beside it: a link in place of either is
    /// removed itself, never what it names.
    static func discard(_ file: FolderFile) {
        file.remove()
        file.appending(".etag").remove()
    }

    /// Downloads with `attempt` (which says whether it resumed), then runs `check`. When the
    /// check fails after a resume, the partial file at `url` is discarded and `attempt` runs
    /// again, from nothing, once: a source that sent wrong bytes under the right tag costs one
    /// download, not every later sync or run. Returns each attempt's result; a check that fails
    /// whole throws, the partial file discarded.
    public static func fetchChecked<Attempt>(
        _ url: URL,
        attempt: () async throws -> Attempt,
        resumed: (Attempt) -> Bool,
        check: () throws -> Void
    ) async throws -> [Attempt] {
        try await fetchChecked(discard: { discard(url) }, attempt: attempt, resumed: resumed, check: check)
    }

    /// ``fetchChecked(_:attempt:resumed:check:)`` of the partial file `file` of the sync folder.
    static func fetchChecked<Attempt>(
        _ file: FolderFile,
        attempt: () async throws -> Attempt,
        resumed: (Attempt) -> Bool,
        check: () throws -> Void
    ) async throws -> [Attempt] {
        try await fetchChecked(discard: { discard(file) }, attempt: attempt, resumed: resumed, check: check)
    }

    /// Runs the attempts, calling `discard` where the partial file is to go.
    private static func fetchChecked<Attempt>(
        discard: () -> Void,
        attempt: () async throws -> Attempt,
        resumed: (Attempt) -> Bool,
        check: () throws -> Void
    ) async throws -> [Attempt] {
        let first = try await attempt()
        do {
            try check()
            return [first]
        } catch {
            discard()
            guard resumed(first) else { throw error }
        }
        let second = try await attempt()
        do {
            try check()
            return [first, second]
        } catch {
            discard()
            throw error
        }
    }
}
