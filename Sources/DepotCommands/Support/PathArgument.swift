import ArgumentParser
import Foundation

/// A path given on the command line. It names a file only through a ``CommandEnvironment``
/// (``path(in:)``, ``url(in:)``): relative to the environment's folder, so that a command run in
/// process opens what the same command run in that folder would. Printed as it was given.
struct PathArgument: ExpressibleByArgument, Sendable, CustomStringConvertible {
    /// The text as given.
    let description: String

    init(argument: String) {
        description = argument
    }

    init(_ text: String) {
        description = text
    }

    /// The path to open: relative ones resolved against the environment's folder.
    func path(in environment: CommandEnvironment) -> String {
        environment.resolve(description)
    }

    /// `text` (a message, a path) with each of `arguments`' ``path(in:)`` written as it was
    /// given: what a library says of the paths it was handed reads as the command line said them.
    static func asGiven(_ text: String, _ arguments: [PathArgument], in environment: CommandEnvironment) -> String {
        arguments.reduce(text) { text, argument in
            let path = argument.path(in: environment)
            return path == argument.description ? text : text.replacingOccurrences(of: path, with: argument.description)
        }
    }

    /// ``path(in:)`` as a file URL.
    func url(in environment: CommandEnvironment) -> URL {
        URL(fileURLWithPath: path(in: environment))
    }
}
