import DepotPolicy
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a sync, or one file of it, failed.
///
/// ``message`` (``description``) is the developer's reason, for logs; ``errorDescription``
/// (`localizedDescription`) is a sentence for the user (``SyncError/errorDescription``).
public struct SyncError: Error, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible, Codable {
        let name: String
        public var description: String { name }

        /// The server could not be reached, or the connection broke.
        public static let network = Code(name: "network")
        /// The server answered with an unexpected status.
        public static let server = Code(name: "server")
        /// What arrived does not match its SHA-256 or size, or cannot be decoded.
        public static let corrupt = Code(name: "corrupt")
        /// The sync folder could not be read or written.
        public static let io = Code(name: "io")
        /// A channel document was refused: no trusted signature, expired, or older than the
        /// last one accepted.
        public static let untrusted = Code(name: "untrusted")
        /// No release the channel offers can be used by this app's version
        /// (``DepotClient/Configuration/clientVersion``).
        public static let incompatible = Code(name: "incompatible")
        /// A file the switch would replace or remove is in use: SQLite keeps a connection's
        /// files beside it (``SQLiteSidecar``). Nothing was changed; what was downloaded is kept,
        /// and the next sync once the app has closed the database applies it.
        public static let inUse = Code(name: "in-use")
        /// ``DepotClient/apply()`` found no release staged for the release the folder holds.
        public static let notStaged = Code(name: "not-staged")
        /// The release would transfer more than the budget
        /// (``DepotClient/Configuration/maximumTransferBytes``); nothing was downloaded but the
        /// documents. ``SyncError/expectedBytes`` says how much it needs.
        public static let overBudget = Code(name: "over-budget")
        /// The folder's file system has less space free than the download needs
        /// (``UpdatePlan/requiredBytes``); nothing was downloaded but the documents.
        /// ``SyncError/requiredBytes`` and ``SyncError/freeBytes`` say how much.
        public static let noSpace = Code(name: "no-space")

        /// Whether the fault may be the server's, so that another server may do better
        /// (``DepotClient/servers``): not for the folder's own failures, nor for an app no
        /// release suits.
        var isServerFault: Bool { !([.io, .incompatible, .inUse, .notStaged, .overBudget, .noSpace] as [Code]).contains(self) }
    }

    public let code: Code
    public let message: String
    /// For `.overBudget`: the bytes the download was expected to transfer.
    public private(set) var expectedBytes: Int64?
    /// For `.noSpace`: the space the download needs, and the space free.
    public private(set) var requiredBytes: Int64?
    public private(set) var freeBytes: Int64?
    /// When ``DepotClient/sync(progress:)`` or ``DepotClient/download(progress:)`` failed because
    /// files failed: the report, which names each failure (``SyncReport/failedCount``). The folder stays
    /// at the release it held; what was downloaded is kept for the next sync.
    public internal(set) var report: SyncReport?

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A release `release` that would transfer `expected` bytes, over `budget`.
    static func overBudget(expected: Int64, budget: Int64, release: Int64) -> SyncError {
        var error = SyncError(.overBudget, "release \(release) would transfer \(expected) bytes, over the budget of \(budget)")
        error.expectedBytes = expected
        return error
    }

    /// A sync whose servers sent more than its plan: `moved` bytes, past `budget`
    /// (``TransferBudget``).
    static func overBudget(moved: Int64, budget: Int64) -> SyncError {
        var error = SyncError(
            .overBudget,
            "the servers sent more than the plan: \(moved) bytes moved, and the budget of \(budget) leaves no room for the rest; nothing was applied"
        )
        error.expectedBytes = moved
        return error
    }

    /// Release `release` needs `required` bytes of space in `folder`, which has `free`.
    static func noSpace(required: Int64, free: Int64, release: Int64, folder: String) -> SyncError {
        let needs = "release \(release) needs \(FreeSpace.text(required)) of space in \(folder), \(FreeSpace.text(free)) free"
        var error = SyncError(.noSpace, needs + " (\(required) and \(free) bytes): free some space, or sync elsewhere")
        error.requiredBytes = required
        error.freeBytes = free
        return error
    }

    /// A sync or download whose `report` has failed files: the first failure's code, a message
    /// that counts them and gives the first one's reason, and the report attached.
    static func filesFailed(_ report: SyncReport) -> SyncError {
        let first = report.files.first { $0.outcome == .failed }
        let count = "\(report.failedCount) file\(report.failedCount == 1 ? "" : "s") could not be synced"
        var error = SyncError(first?.code ?? .io, count + (first.map { "; the first, \($0.path): \($0.error ?? "failed")" } ?? ""))
        error.report = report
        return error
    }

    public var description: String { message }
}

extension SyncError.Code {
    /// The code of `error`, a file's failure: a ``SyncError``'s own; a URL loading error is
    /// `.network`; any other, `.io`.
    init(of error: any Error) {
        switch error {
        case let error as SyncError: self = error.code
        case is URLError: self = .network
        default: self = .io
        }
    }

    /// Its name, as ``description`` prints it.
    public init(from decoder: any Decoder) throws {
        self.init(name: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

extension SyncError {
    /// A rule's refusal (``DepotPolicy/PolicyError``), as a sync reports it.
    init(_ error: PolicyError) {
        self.init(error.code == .incompatible ? .incompatible : .corrupt, error.message)
    }
}
