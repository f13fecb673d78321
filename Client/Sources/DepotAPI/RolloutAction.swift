/// What a person can do to a live rollout: `POST /v1/channels/{channel}/rollout/{action}`,
/// `depot rollout pause|resume|halt|rollback`.
public enum RolloutAction: String, CaseIterable, Codable, Sendable {
    /// Holds it at its percentage.
    case pause
    /// Goes on from its percentage: a new step starts now.
    case resume
    /// Stops it at its percentage, as a failed gate does.
    case halt
    /// Ends it: every install goes to the release it replaced.
    case rollback

    /// The action a request path names.
    ///
    /// - Throws: ``ActionError`` for any other word, saying which there are.
    public init(pathComponent: String) throws(ActionError) {
        guard let action = RolloutAction(rawValue: pathComponent) else { throw ActionError(named: String(pathComponent.prefix(40))) }
        self = action
    }

    /// A request named no action of a rollout.
    public struct ActionError: Error, Sendable, CustomStringConvertible {
        public let named: String
        public var description: String {
            "A rollout can be paused, resumed, halted or rolled back (\(RolloutAction.allCases.map(\.rawValue).joined(separator: ", "))), not \"\(named)\""
        }
    }
}
