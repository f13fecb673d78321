import ArgumentParser

/// The `depot` command line: what the binary runs, and what a test runs in process, so the two
/// cannot drift.
public enum DepotCommandLine {
    /// Parses `arguments` (without the program's name) and runs the command they name in
    /// `environment`; returns the exit status. A first argument that names no command is one
    /// `Error:` line (``UnknownCommand``); help is written to the output with status 0; a usage
    /// error or failure is written to the errors with its status (``Depot/exitCode(for:)``).
    public static func run(_ arguments: [String], in environment: CommandEnvironment) async -> Int32 {
        let commands = Depot.configuration.subcommands.map { $0._commandName }
        if let message = UnknownCommand.message(for: arguments, commands: commands) {
            environment.printError("Error: \(message)")
            return ExitCode.validationFailure.rawValue
        }
        do {
            var command = try await Depot.asyncParseAsRoot(arguments)
            if let command = command as? any DepotCommand {
                try await command.run(in: environment)
            } else if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            return ExitCode.success.rawValue
        } catch {
            let status = Depot.exitCode(for: error)
            let message = Depot.fullMessage(for: error)
            if !message.isEmpty {
                if status == .success { environment.print(message) } else { environment.printError(message) }
            }
            return status.rawValue
        }
    }
}
