import Crypto
import DepotFiles
import DepotHTTP
import Foundation

/// What the last publish of a tree sent, kept on the publisher's machine the way git keeps its
/// index: for each path of the release, the SHA-256 the release holds there, the file it came
/// from and that file's status (``FileStatus``) when it was hashed; and the release the publish
/// made. With it a publish reads only the files whose status changed (``digest(of:)``), and
/// sends only the paths whose content changed (``CommitPlan``).
///
/// A status is trusted only when the file was last modified (and its status last changed) at
/// least ``racyWindow`` before the publish that hashed it began: a write in the same clock
/// tick as the hashing could leave the status unchanged with other bytes (git's "racy" case),
/// so such a file is hashed again next time.
///
/// Stored as text, ending with the SHA-256 of what precedes: a file cut or damaged (a crash
/// while it was replaced) is ignored whole, and the publish hashes everything again.
public struct PublishIndex: Sendable, Equatable {
    /// One path of the release.
    public struct Entry: Sendable, Equatable {
        /// What the release holds at the path.
        public var sha256: String
        /// The file it was read from and its status then; `nil` when no local file backs the
        /// path (a path of a complete release this publish did not send), or the status was too
        /// recent to be trusted.
        public var source: Source?

        public init(sha256: String, source: Source? = nil) {
            self.sha256 = sha256
            self.source = source
        }
    }

    /// A file whose content is known without reading it while its status stays the same.
    public struct Source: Sendable, Equatable {
        public var file: String
        public var status: FileStatus

        public init(file: String, status: FileStatus) {
            self.file = file
            self.status = status
        }
    }

    /// The release the last publish left the channel on.
    public struct Release: Sendable, Equatable {
        /// Its id (the SHA-256 of its document): a commit based on it names it
        /// (``DepotAPI/CommitRequest/base``), which no other server's or catalog's release has.
        public var id: String
        /// Whether ``PublishIndex/entries`` list every path of that release (so a `--replace`
        /// publish can work out what to delete), or only the paths this tree published.
        public var isComplete: Bool

        public init(id: String, isComplete: Bool) {
            self.id = id
            self.isComplete = isComplete
        }
    }

    public var release: Release?
    /// By path in the release.
    public var entries: [String: Entry]

    public init(release: Release? = nil, entries: [String: Entry] = [:]) {
        self.release = release
        self.entries = entries
    }

    /// Two seconds: more than the timestamp granularity of any file system a publisher runs on
    /// (FAT's is two seconds; ext4, APFS and XFS keep nanoseconds).
    public static let racyWindow: Int64 = 2_000_000_000

    /// The SHA-256 of `file`'s content if the index knows it from its status: same file, same
    /// status, and that status trusted.
    public func digest(of file: LocalFile) -> String? {
        guard let entry = entries[file.logicalPath], let source = entry.source, source.file == file.file, source.status == file.status else {
            return nil
        }
        return entry.sha256
    }

    /// The source to record for `file`, hashed by a publish that began at `started`
    /// (nanoseconds since 1970): `nil` when its status is too recent to be trusted.
    public static func source(for file: LocalFile, publishStarted started: Int64) -> Source? {
        guard max(file.status.modified, file.status.changed) <= started - racyWindow else { return nil }
        return Source(file: file.file, status: file.status)
    }
}

extension PublishIndex {
    private static let header = "depot-publish-index 1"

    /// The index stored at `url`; an empty one when there is none, or it is damaged or from
    /// another format. Read through its folder's descriptor: a link at its name is no index.
    public static func load(from url: URL) -> PublishIndex {
        let folder = url.deletingLastPathComponent().path
        guard let bytes = try? ContainedFolder(root: folder, creating: false).read(url.lastPathComponent) else { return PublishIndex() }
        return PublishIndex(encoded: Data(bytes)) ?? PublishIndex()
    }

    /// Replaces the index at `url` (its folder created if needed) with this one, atomically: a
    /// new file renamed over the old, through the folder's descriptor (a link at its name is
    /// replaced, never followed). Not made durable: after a crash the worst is an index that is
    /// older, or ignored.
    public func save(to url: URL) throws {
        do {
            let folder = try ContainedFolder(root: url.deletingLastPathComponent().path)
            try folder.replace(url.lastPathComponent, with: Array(encoded()), durable: false)
        } catch {
            throw PublisherError("cannot write the publish index \(url.path)")
        }
    }

    /// The text form: a header, the release, one line per entry (fields separated by spaces, the
    /// path and file last, separated by a tab), and the SHA-256 of all that. Written and read as
    /// bytes: 100,000 entries take a few tens of milliseconds either way.
    func encoded() -> Data {
        var bytes: [UInt8] = Array((Self.header + "\n").utf8)
        bytes += Array((release.map { "release \($0.id) \($0.isComplete ? 1 : 0)\n" } ?? "release none\n").utf8)
        bytes.reserveCapacity(bytes.count + entries.count * 160)
        func number(_ value: some BinaryInteger) {
            bytes += Array(String(value).utf8)
            bytes.append(UInt8(ascii: " "))
        }
        for (path, entry) in entries.sorted(by: { $0.key < $1.key }) {
            // A path or file with a line break or tab is not recorded: hashed every time.
            guard !path.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 9 }) else { continue }
            let source = entry.source.flatMap { $0.file.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 9 }) ? nil : $0 }
            let status = source?.status ?? FileStatus(size: 0, modified: 0, changed: 0, inode: 0, device: 0)
            bytes += Array("entry ".utf8)
            bytes += Array(entry.sha256.utf8)
            bytes.append(UInt8(ascii: " "))
            number(status.size)
            number(status.modified)
            number(status.changed)
            number(status.inode)
            number(status.device)
            bytes += source == nil ? Array("0 ".utf8) : Array("1 ".utf8)
            bytes += Array(path.utf8)
            bytes.append(9)
            bytes += Array((source?.file ?? "").utf8)
            bytes.append(10)
        }
        bytes += Array("end \(Self.checksum(bytes))\n".utf8)
        return Data(bytes)
    }

    init?(encoded data: Data) {
        let bytes = [UInt8](data)
        let end = Array("\nend ".utf8)
        // The last line: "end <64 hex>\n".
        guard bytes.count > end.count + 65, let endStart = Self.lastRange(of: end, in: bytes) else { return nil }
        let body = bytes[..<(endStart + 1)]
        let sum = String(decoding: bytes[(endStart + end.count)...].prefix { $0 != 10 }, as: UTF8.self)
        guard sum == Self.checksum(body) else { return nil }
        var lines = body.split(separator: 10, omittingEmptySubsequences: true)[...]
        guard let header = lines.popFirst(), String(decoding: header, as: UTF8.self) == Self.header,
            let releaseLine = lines.popFirst().map({ String(decoding: $0, as: UTF8.self).split(separator: " ") }), releaseLine.first == "release"
        else { return nil }
        if releaseLine.count == 3, releaseLine[1].utf8.count == 64 {
            release = Release(id: String(releaseLine[1]), isComplete: releaseLine[2] == "1")
        } else if releaseLine != ["release", "none"] {
            return nil
        }
        entries = Dictionary(minimumCapacity: lines.count)
        for line in lines {
            guard let (path, entry) = Self.entry(line) else { return nil }
            entries[path] = entry
        }
    }

    /// One `entry` line: `entry <sha256> <size> <mtime> <ctime> <inode> <device> <0|1> <path>\t<file>`.
    private static func entry(_ line: ArraySlice<UInt8>) -> (String, Entry)? {
        var rest = line[...]
        func field() -> ArraySlice<UInt8>? {
            guard let space = rest.firstIndex(of: UInt8(ascii: " ")) else { return nil }
            defer { rest = rest[(space + 1)...] }
            return rest[rest.startIndex..<space]
        }
        func integer<Value: FixedWidthInteger>(_ type: Value.Type) -> Value? {
            guard let digits = field(), !digits.isEmpty else { return nil }
            var value: Value = 0
            for digit in digits {
                guard (48...57).contains(digit) else { return nil }
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(Value(digit - 48))
                guard !overflow, !overflow2 else { return nil }
                value = sum
            }
            return value
        }
        guard let kind = field(), kind.elementsEqual("entry".utf8), let sha256 = field(), sha256.count == 64,
            let size = integer(Int64.self), let modified = integer(Int64.self), let changed = integer(Int64.self),
            let inode = integer(UInt64.self), let device = integer(UInt64.self), let flag = field(), flag.count == 1,
            let tab = rest.firstIndex(of: 9)
        else { return nil }
        let path = String(decoding: rest[rest.startIndex..<tab], as: UTF8.self)
        let status = FileStatus(size: size, modified: modified, changed: changed, inode: inode, device: device)
        let source = flag.first == UInt8(ascii: "1") ? Source(file: String(decoding: rest[(tab + 1)...], as: UTF8.self), status: status) : nil
        return (path, Entry(sha256: String(decoding: sha256, as: UTF8.self), source: source))
    }

    private static func lastRange(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        var index = bytes.count - needle.count
        while index >= 0 {
            if bytes[index] == needle[0], bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index -= 1
        }
        return nil
    }

    private static func checksum(_ bytes: some Collection<UInt8>) -> String {
        // Hashed in place: an index of 100,000 entries is some 17 MB.
        let digest = bytes.withContiguousStorageIfAvailable { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
        return Hex.string(digest ?? SHA256.hash(data: Data(bytes)))
    }

    /// Where the index of a publish is kept by default: one file per server, channel and set of
    /// items under `$XDG_CACHE_HOME/depot/publish/` (`~/.cache` when unset), `XDG_CACHE_HOME` read
    /// from `environment` (the command's).
    public static func defaultLocation(
        server: String,
        channel: String,
        items: [String],
        logicalPath: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        let cache =
            environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache")
        let absolute = items.map { URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path }
        let key = ([server, channel, logicalPath ?? ""] + absolute).joined(separator: "\n")
        return cache.appendingPathComponent("depot/publish").appendingPathComponent(String(checksum(Array(key.utf8)).prefix(32)) + ".index")
    }
}
