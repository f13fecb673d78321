import Foundation

/// What an app shows of a ``SyncError``: a sentence for the user, by code, without paths, URLs
/// or jargon (``errorDescription``), and why and what to do when that helps
/// (``failureReason``, ``recoverySuggestion``). The developer's reason stays ``SyncError/message``
/// (``SyncError/description``, ``SyncError/debugDescription``), for logs.
///
/// `error.localizedDescription` is ``errorDescription``, on Apple platforms and on Linux alike.
extension SyncError: LocalizedError, CustomDebugStringConvertible {
    /// A sentence for the user, by ``code``.
    public var errorDescription: String? { code.userText.description }

    /// Why, in the user's words, when the description alone does not say.
    public var failureReason: String? { code.userText.reason }

    /// What the user can do, when anything.
    public var recoverySuggestion: String? { code.userText.suggestion }

    /// The developer's reason with its code, for logs: `network: the connection to … was lost`.
    public var debugDescription: String { "\(code): \(message)" }
}

extension SyncError.Code {
    /// The texts of a ``SyncError`` of this code, for the user.
    struct UserText: Equatable {
        var description: String
        var reason: String?
        var suggestion: String?
    }

    /// The texts for the user of an error of this code; a code made elsewhere
    /// (``SyncError/init(_:_:)`` with a code of its own) gets the general one.
    var userText: UserText {
        switch self {
        case .network:
            UserText(
                description: "The update could not be downloaded: check the connection and try again.",
                reason: "The update server could not be reached, or the connection was lost.",
                suggestion: "Check the connection and try again."
            )
        case .server:
            UserText(
                description: "The update server is not answering as expected. Try again later.",
                reason: "The update server gave an unexpected answer.",
                suggestion: "Try again later."
            )
        case .corrupt:
            UserText(
                description: "The update arrived damaged and was not installed. Try again later.",
                reason: "What was downloaded does not match what was published.",
                suggestion: "Try again later."
            )
        case .io:
            UserText(
                description: "The update could not be saved on this device.",
                reason: "The app's files could not be read or written.",
                suggestion: "Restart the app and try again."
            )
        case .untrusted:
            UserText(
                description: "The update was refused because it could not be verified.",
                reason: "The update is not signed by a publisher this app trusts, or it is out of date.",
                suggestion: "Try again later."
            )
        case .incompatible:
            UserText(
                description: "The latest update needs a newer version of the app.",
                reason: "No available update works with this version of the app.",
                suggestion: "Update the app, then try again."
            )
        case .inUse:
            UserText(
                description: "The update is ready and will be installed when the app is restarted.",
                reason: "Files the update replaces are in use.",
                suggestion: "Restart the app to finish the update."
            )
        case .notStaged:
            UserText(
                description: "There is no downloaded update to install.",
                reason: "The update was not downloaded, or it is no longer valid.",
                suggestion: "Download the update again."
            )
        case .overBudget:
            UserText(
                description: "The update is larger than the app may download now.",
                reason: "The update would use more data than allowed.",
                suggestion: "Try again on Wi-Fi or later."
            )
        case .noSpace:
            UserText(
                description: "There is not enough free space on this device for the update.",
                reason: "The update needs more storage than is free.",
                suggestion: "Free some space, then try again."
            )
        default:
            UserText(description: "The update could not be completed. Try again later.", suggestion: "Try again later.")
        }
    }
}
