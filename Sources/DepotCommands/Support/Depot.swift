import ArgumentParser

/// `depot`: serve, publish and sync content.
struct Depot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Publishes SQLite snapshots and assets, and serves them exactly as RFC 9110 says.",
        subcommands: [
            Serve.self, Publish.self, List.self, Release.self, Rollout.self, Sync.self, Export.self, MirrorCommand.self, DeltaCommand.self,
            Keygen.self, Root.self, Audit.self, Backup.self, Restore.self, Import.self,
        ]
    )
}

/// A command that runs in a ``CommandEnvironment``: what it prints, the variables it reads,
/// where its relative paths lead and how it reaches a server all come from there.
protocol DepotCommand: AsyncParsableCommand {
    func run(in environment: CommandEnvironment) async throws
}

extension DepotCommand {
    func run() async throws {
        try await run(in: .process)
    }
}
