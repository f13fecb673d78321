import ArgumentParser
import DepotClient

/// What kind of failure ended a command: the code `--json` prints (`error.code`) and the exit
/// status, so that a script can tell a server it may try again later from a refusal that will
/// not go away by itself. The table (docs/cli.md):
///
/// | status | code | what failed |
/// |---|---|---|
/// | 1 | `failed`, `server`, `corrupt`, `io` | the command; for a sync, the folder keeps its release |
/// | 2 | `network` | no server could be reached, or a connection broke: try again later |
/// | 3 | `untrusted` | a channel document was refused (signature, expiry, an older serial) |
/// | 4 | `incompatible`, `over-budget`, `no-space` | this install cannot take the release: too old an app, over the budget, too little disk |
/// | 5 | `in-use`, `not-staged` | `--apply`: nothing staged to apply, or a file to replace is open |
/// | 64 | `usage` | the command line |
struct FailureKind: Sendable, Equatable {
    let code: String
    let status: Int32

    /// Any failure the table names no other kind for.
    static let failed = FailureKind(code: "failed", status: 1)
    /// The command line is wrong (argument-parser's `ValidationError`, exit status 64 as ever).
    static let usage = FailureKind(code: "usage", status: ExitCode.validationFailure.rawValue)

    /// The kind of `error`: a ``CommandFailure``'s own, a ``DepotClient/SyncError``'s by its
    /// code, `usage` for a `ValidationError`, else `failed`.
    init(of error: any Error) {
        switch error {
        case let failure as CommandFailure: self = failure.kind
        case let error as SyncError: self.init(error.code)
        case is ValidationError: self = .usage
        default: self = .failed
        }
    }

    /// The kind of a sync's error, by its code: the table above.
    init(_ code: SyncError.Code) {
        let status: Int32 =
            switch code {
            case .network: 2
            case .untrusted: 3
            case .incompatible, .overBudget, .noSpace: 4
            case .inUse, .notStaged: 5
            default: 1
            }
        self.init(code: code.description, status: status)
    }

    private init(code: String, status: Int32) {
        self.code = code
        self.status = status
    }
}

extension CommandFailure {
    /// A sync's error, as `depot sync` ends with it: its message, and its kind by its code.
    init(_ error: SyncError) {
        self.init(error.message, kind: FailureKind(error.code))
    }
}

/// `--json`'s failure: one object on standard output,
/// `{"error":{"code":"network","message":"cannot connect to …","status":2}}`, the exit status
/// repeated for a reader that has only the text.
struct FailureDocument: Encodable, Equatable {
    struct Body: Encodable, Equatable {
        let code: String
        let message: String
        let status: Int32
    }

    let error: Body

    /// `error` as printed: its kind (``FailureKind``) and its message, URLs without their
    /// credentials.
    init(_ error: any Error) {
        let kind = FailureKind(of: error)
        let message: String =
            switch error {
            case let failure as CommandFailure: failure.message
            case let error as SyncError: error.message
            case let usage as ValidationError: usage.message
            default: String(describing: error)
            }
        self.error = Body(code: kind.code, message: redactingCredentials(in: message), status: kind.status)
    }
}
