import DepotAPI
import DepotConcurrency
import DepotFiles
import Foundation

/// The sync folder as the client touches it: through a descriptor of it
/// (``DepotFiles/ContainedFolder``), so that a link another process of the app's container
/// planted there (in place of `.depot/partial`, `.depot/releases`, a partial file, or a folder
/// of the release such as `img`) is refused with one line, never followed: nothing outside the
/// folder is written or removed.
///
/// Opened on first use and kept while its path names it; shared by the copies of a
/// ``DepotClient``.
final class SyncFolder: Sendable {
    /// Depot's own folders in the sync folder, made (and checked) when it is opened.
    static let ownFolders = [".depot", ".depot/partial", ".depot/staging", ".depot/releases", ".depot/pages"]

    let path: String
    private let opened = Locked<ContainedFolder?>(nil)

    init(path: String) {
        self.path = path
    }

    /// The folder, with ``ownFolders`` made when missing; any of them that is not a folder (a
    /// link) is refused.
    func open() throws -> ContainedFolder {
        try opened.withLock { opened in
            // Kept while the path names it: an app that removes its folder and syncs again gets
            // a new one.
            if let opened, opened.isAtRoot { return opened }
            let folder = try folderCall {
                // New folders are not made durable one by one: the switch makes every write
                // durable at once (``Durability``).
                let folder = try ContainedFolder(root: path, synchronizesNewFolders: false)
                for own in Self.ownFolders { try folder.makeFolder(own) }
                return folder
            }
            opened = folder
            return folder
        }
    }

    /// Runs `body` with the folder, telling a failure to touch it as a ``SyncError`` of code
    /// `io`.
    func with<Result>(_ body: (ContainedFolder) throws -> Result) throws -> Result {
        let folder = try self.open()
        return try folderCall { try body(folder) }
    }
}

/// Runs `body`, telling a failure to touch the sync folder as a ``SyncError`` of code `io`.
func folderCall<Result>(_ body: () throws -> Result) throws -> Result {
    do {
        return try body()
    } catch let error as FolderError {
        throw SyncError(.io, error.message)
    }
}

/// The client's own small files in `.depot/`, each read whole and replaced atomically and
/// durably through the folder's descriptor (``DepotFiles/ContainedFolder/replace(_:with:durable:)``):
/// a link planted in place of one is replaced, never followed, and never read through.
enum OwnFile: String, CaseIterable {
    /// What the client remembers between syncs (``SyncState``).
    case state = ".depot/state.json"
    /// A switch under way (``ReleaseJournal``).
    case journal = ".depot/switch.json"
    /// The newest root a sync verified.
    case root = ".depot/root.json"
    /// The id the install reports under (``InstallID``).
    case installID = ".depot/install-id"
    /// A release downloaded for ``DepotClient/apply()`` (``StagedRelease``).
    case staged = ".depot/staged.json"
    /// When a ``DepotUpdater`` last checked with success (``UpdateCheckStamp``).
    case updater = ".depot/updater.json"
}

extension SyncFolder {
    /// The bytes of `file`; `nil` when there is none, or it cannot be read (a link in its
    /// place, or a folder that cannot be opened), or it holds more than `bound` bytes.
    func read(_ file: OwnFile, bound: Int = .max) -> [UInt8]? {
        (try? with { try $0.read(file.rawValue, bound: bound) }) ?? nil
    }

    /// `file` decoded from its JSON; `nil` when there is none, or it cannot be read or decoded,
    /// or it holds more than `bound` bytes.
    func decoded<Value: Decodable>(_ file: OwnFile, as type: Value.Type, bound: Int = .max) -> Value? {
        read(file, bound: bound).flatMap { try? JSONDecoder().decode(type, from: Data($0)) }
    }

    /// Replaces `file` with `bytes`, durably.
    func replace(_ file: OwnFile, with bytes: [UInt8]) throws {
        try with { try $0.replace(file.rawValue, with: bytes, durable: true) }
    }

    /// Replaces `file`, durably, with the JSON `produce` writes to a ``JSONStream``: a part at a
    /// time, never whole in memory.
    func replace(_ file: OwnFile, producing produce: (inout JSONStream) throws -> Void) throws {
        try with { folder in
            try folder.replace(file.rawValue, durable: true) { write in
                try withoutActuallyEscaping(write) { write in
                    var stream = JSONStream(write: write)
                    try produce(&stream)
                    try stream.flush()
                }
            }
        }
    }

    /// Removes `file`, durably: a removal a power cut undoes could carry a journal out again.
    func remove(_ file: OwnFile) throws {
        try with { folder in
            try folder.remove(file.rawValue)
            try folder.synchronize(folder: ".depot")
        }
    }
}
